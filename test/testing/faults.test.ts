import { createEnvelope } from 'loyalty-partner-sdk';
import {
  type Emulator,
  EmulatorError,
  type FaultKind,
  samplePayload,
  signTestHeader,
} from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { earn, partner, readyMerchant, startEmulator } from './helpers.js';

describe('fault injection', () => {
  const emulators: Emulator[] = [];
  afterEach(async () => {
    await Promise.all(emulators.splice(0).map((e) => e.close()));
  });
  const start = async (options?: Parameters<typeof startEmulator>[0]) => {
    const started = await startEmulator(options);
    emulators.push(started.emulator);
    return started;
  };

  /** The fault each of 30 identical GET /connection requests got, under one seed. */
  const sequence = async (seed: number) => {
    const { emulator, url } = await start();
    const p = partner(url, emulator.createMerchant());
    emulator.injectFaults({
      rate: 0.5,
      kinds: ['CONCURRENCY_CONFLICT', 'SUBSCRIPTION_LAPSED', 'rate-limited'],
      seed,
    });
    for (let i = 0; i < 30; i++) await p.get('/connection');
    return emulator.requests().map((r) => r.fault);
  };

  it('draws the same faults for the same seed and requests, and other faults for another seed', async () => {
    const [a, b, c] = [await sequence(7), await sequence(7), await sequence(8)];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(new Set(a)).toEqual(
      new Set([null, 'CONCURRENCY_CONFLICT', 'SUBSCRIPTION_LAPSED', 'rate-limited']),
    );
  });

  it('faults before processing, so a faulted earn is never credited and its redelivery is', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    emulator.injectFaults({ kinds: ['CONCURRENCY_CONFLICT'], times: 1 });
    const faulted = await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(0);
    const redelivered = await m.partner.post('InvoiceEarned', earn('inv-1', 50), {
      eventId: faulted.eventId,
    });
    expect([faulted.status, faulted.body.code]).toEqual([503, 'CONCURRENCY_CONFLICT']);
    expect(redelivered.body.result.pointsEarned).toBe(5);
  });

  it('answers rate-limited with 429 and Retry-After', async () => {
    const { emulator, url } = await start();
    const p = partner(url, emulator.createMerchant());
    emulator.injectFaults({ kinds: ['rate-limited'], times: 1 });
    const answer = await p.get('/connection');
    expect([answer.status, answer.body.code, answer.headers.get('retry-after')]).toEqual([
      429,
      'RATE_LIMITED',
      '1',
    ]);
  });

  it('drops the connection on reset, over HTTP and in process', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    emulator.injectFaults({ kinds: ['reset'], times: 2 });
    const headers = { 'x-api-key': m.apiKey };
    await expect(fetch(`${url}/api/partner/v1/connection`, { headers })).rejects.toThrow(TypeError);
    await expect(
      emulator.fetch('http://loyalty.test/api/partner/v1/connection', { headers }),
    ).rejects.toThrow('fetch failed');
    expect(emulator.requests().map((r) => [r.fault, r.status])).toEqual([
      ['reset', null],
      ['reset', null],
    ]);
  });

  it('never answers on timeout, until the caller gives up', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    emulator.injectFaults({ kinds: ['timeout'], times: 2 });
    const init = () => ({ headers: { 'x-api-key': m.apiKey }, signal: AbortSignal.timeout(100) });
    await expect(fetch(`${url}/api/partner/v1/connection`, init())).rejects.toThrow();
    await expect(emulator.fetch('http://loyalty.test/api/partner/v1/connection', init())).rejects.toThrow();
    expect(
      (await fetch(`${url}/api/partner/v1/connection`, { headers: { 'x-api-key': m.apiKey } })).status,
    ).toBe(200);
  });

  it('processes then hangs on timeout-after-processing, and replays the cached answer to the retry', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    emulator.injectFaults({ kinds: ['timeout-after-processing'], times: 1 });
    const envelope = createEnvelope('InvoiceEarned', earn('inv-1', 50));
    const body = JSON.stringify(envelope);
    const headers = {
      'content-type': 'application/json',
      'x-api-key': m.apiKey,
      'x-signature': signTestHeader(body, m.signingSecret),
    };
    const hung = emulator.fetch(`${url}/api/partner/v1/events`, {
      method: 'POST',
      body,
      headers,
      signal: AbortSignal.timeout(100),
    });
    await expect(hung).rejects.toThrow();
    const retry = await m.partner.postRaw(body);
    expect([retry.status, retry.body.result.pointsEarned]).toEqual([200, 5]);
    expect(emulator.events({ eventId: envelope.eventId }).map((r) => [r.outcome, r.fault])).toEqual([
      ['processed', 'timeout-after-processing'],
      ['replayed', null],
    ]);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(5);
  });

  it('judges a clock-skew request by a clock 10 minutes ahead: 401 SIGNATURE_EXPIRED, with a true Date', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    emulator.injectFaults({ kinds: ['clock-skew'], times: 1 });
    const answer = await partner(url, m).post('BranchSynced', samplePayload('BranchSynced'));
    expect([answer.status, answer.body.code]).toEqual([401, 'SIGNATURE_EXPIRED']);
    // The Date header tells the truth, so a client correcting its clock from it stays correct.
    expect(Math.abs(Date.parse(answer.headers.get('date') ?? '') - emulator.now().getTime())).toBeLessThan(
      300_000,
    );
    expect((await partner(url, m).post('BranchSynced', samplePayload('BranchSynced'))).status).toBe(200);
  });

  it('faults only the endpoints it is told to', async () => {
    const { emulator, url } = await start();
    const p = partner(url, emulator.createMerchant());
    emulator.injectFaults({ kinds: ['SUBSCRIPTION_LAPSED'], endpoints: ['events'] });
    expect((await p.get('/connection')).status).toBe(200);
    expect((await p.post('BranchSynced', samplePayload('BranchSynced'))).body.code).toBe(
      'SUBSCRIPTION_LAPSED',
    );
    emulator.clearFaults();
    expect((await p.post('BranchSynced', samplePayload('BranchSynced'))).status).toBe(200);
  });

  it('skews the service clock persistently with setClockSkew, in the Date header and the signature check', async () => {
    const { emulator, url } = await start({ clock: 'manual', startTime: Date.UTC(2026, 10, 20, 9, 0, 0) });
    const m = emulator.createMerchant();
    emulator.setClockSkew(600);
    const answer = await partner(url, m, () => new Date(Date.UTC(2026, 10, 20, 9, 0, 0))).post(
      'BranchSynced',
      samplePayload('BranchSynced'),
    );
    expect(answer.body.code).toBe('SIGNATURE_EXPIRED');
    expect(answer.headers.get('date')).toBe('Fri, 20 Nov 2026 09:10:00 GMT');
  });

  it.each<[string, object]>([
    ['a rate above 1', { rate: 2, kinds: ['reset'] }],
    ['no kinds', { kinds: [] }],
    ['an unknown kind', { kinds: ['INVALID_API_KEY' as FaultKind] }],
  ])('refuses %s with EmulatorError INVALID_OPTIONS', async (_name, options) => {
    const { emulator } = await start();
    expect(() => emulator.injectFaults(options as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_OPTIONS' }),
    );
    expect(() => emulator.injectFaults(options as never)).toThrow(EmulatorError);
  });
});
