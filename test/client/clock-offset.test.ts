import type { ClientHooks, LoyaltyClient } from 'loyalty-partner-sdk';

type ClockSkewEvent = Parameters<NonNullable<ClientHooks['onClockSkew']>>[0];

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, invoice, SECRET } from './support/client-fixture.js';
import {
  fail,
  ok,
  type ScriptedServer,
  startScriptedServer,
  verifyByHand,
} from './support/scripted-server.js';

const TWENTY_MINUTES = 20 * 60 * 1000;
let server: ScriptedServer;
let client: LoyaltyClient;

/** Like the service: a valid signature whose `t` is more than 300 s from its own clock is expired. */
function serviceChecksTheClock() {
  server.script = (req, res) => {
    const t = verifyByHand(req.body, req.headers['x-signature'], SECRET);
    if (t === undefined) return fail(res, 401, 'INVALID_SIGNATURE');
    if (Math.abs(t - Date.now() / 1000) > 300) return fail(res, 401, 'SIGNATURE_EXPIRED');
    ok(res);
  };
}

beforeEach(async () => {
  server = await startScriptedServer();
  serviceChecksTheClock();
});
afterEach(async () => {
  await client?.close();
  await server.close();
});

describe('clock skew', () => {
  it.each([
    ['20 minutes slow', -TWENTY_MINUTES],
    ['20 minutes fast', TWENTY_MINUTES],
  ])('gets events through from a partner whose clock is %s, and keeps the offset', async (_label, skew) => {
    const skews: ClockSkewEvent[] = [];
    client = clientFor(server, {
      now: () => Date.now() + skew,
      hooks: { onClockSkew: (e) => void skews.push(e) },
    });

    const first = await client.send('InvoiceEarned', invoice('inv-1'));
    expect(first.attempts).toBe(2);
    expect(skews).toHaveLength(1);
    // The Date header has whole seconds: the learned offset is the skew to within about a second.
    expect(Math.abs(skews[0]!.offsetMs + skew)).toBeLessThan(2_000);
    expect(skews[0]!.previousOffsetMs).toBe(0);
    expect(client.clockOffsetMs).toBe(skews[0]!.offsetMs);

    const second = await client.send('InvoiceEarned', invoice('inv-2'));
    expect(second.attempts).toBe(1);
    const attempts = server.requests.map((r) => JSON.parse(r.body.toString()).eventId);
    expect(attempts).toEqual([first.eventId, first.eventId, second.eventId]);
  });

  it('reports the offset once when many concurrent sends are refused together', async () => {
    const skews: ClockSkewEvent[] = [];
    client = clientFor(server, {
      now: () => Date.now() - TWENTY_MINUTES,
      hooks: { onClockSkew: (e) => void skews.push(e) },
    });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => client.send('InvoiceEarned', invoice(`inv-${i}`))),
    );
    expect(results.every((r) => r.status === 200 && r.attempts <= 2)).toBe(true);
    expect(skews).toHaveLength(1);
  });

  it('re-sends only once: a second SIGNATURE_EXPIRED is final', async () => {
    server.script = (_req, res) => fail(res, 401, 'SIGNATURE_EXPIRED');
    client = clientFor(server, { now: () => Date.now() - TWENTY_MINUTES });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({
      code: 'SIGNATURE_EXPIRED',
      action: 'check-clock',
      retryable: false,
      attempts: 2,
    });
  });

  it('cannot correct without a Date header, and says to check the clock', async () => {
    server.script = (_req, res) => {
      res.sendDate = false;
      fail(res, 401, 'SIGNATURE_EXPIRED');
    };
    client = clientFor(server, { now: () => Date.now() - TWENTY_MINUTES });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'SIGNATURE_EXPIRED', attempts: 1, retryable: false });
    expect((error as Error).message).toMatch(/NTP/);
    expect(client.clockOffsetMs).toBe(0);
  });

  it('learns the offset but does not re-send with retry: false, and says a re-send will pass', async () => {
    client = clientFor(server, { now: () => Date.now() - TWENTY_MINUTES, retry: false });
    await expect(client.send('InvoiceEarned', invoice('inv-1'))).rejects.toMatchObject({
      code: 'SIGNATURE_EXPIRED',
      attempts: 1,
      retryable: true,
    });
    await expect(client.send('InvoiceEarned', invoice('inv-2'))).resolves.toMatchObject({ attempts: 1 });
  });
});

describe('an absurd service clock', () => {
  it('is not believed: a Date of 2100 leaves the offset at 0, is reported with applied: false, and the call fails', async () => {
    server.script = (_req, res) =>
      fail(res, 401, 'SIGNATURE_EXPIRED', { date: 'Fri, 01 Jan 2100 00:00:00 GMT' });
    const skews: ClockSkewEvent[] = [];
    client = clientFor(server, { hooks: { onClockSkew: (e) => void skews.push(e) } });

    const error = await client.send('InvoiceEarned', invoice('inv-1')).catch((err: unknown) => err);
    expect(error).toMatchObject({
      name: 'LoyaltyApiError',
      code: 'SIGNATURE_EXPIRED',
      attempts: 1,
      retryable: false,
    });
    expect(String(error)).toMatch(
      /Clock not corrected: the service's Date is \d+\.\d h from this machine's clock, beyond the 24 h/,
    );
    expect(skews).toHaveLength(1);
    expect(skews[0]).toMatchObject({ applied: false, previousOffsetMs: 0 });
    expect(skews[0]!.offsetMs).toBeGreaterThan(70 * 365 * 24 * 3_600_000);
    expect(client.clockOffsetMs).toBe(0);

    // Later requests and their occurredAt keep this machine's clock.
    serviceChecksTheClock();
    const before = Date.now();
    const sent = await client.send('InvoiceEarned', invoice('inv-2'));
    const occurredAt = Date.parse(JSON.parse(server.requests.at(-1)!.body.toString()).occurredAt);
    expect(sent.attempts).toBe(1);
    expect(Math.abs(occurredAt - before)).toBeLessThan(60_000);
  });

  it('is believed up to 24 hours either way', async () => {
    const skew = 23 * 3_600_000;
    client = clientFor(server, { now: () => Date.now() - skew });
    const sent = await client.send('InvoiceEarned', invoice('inv-1'));
    expect(sent.attempts).toBe(2);
    expect(Math.abs(client.clockOffsetMs - skew)).toBeLessThan(2_000);
  });
});
