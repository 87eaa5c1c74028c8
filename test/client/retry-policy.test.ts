import { ERROR_CODES, type ErrorCode, LoyaltyApiError, type LoyaltyClient } from 'loyalty-partner-sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { fail, ok, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

const MAX_ATTEMPTS = 3;
let server: ScriptedServer;
let client: LoyaltyClient;

beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(() => server.close());
afterEach(async () => {
  await client.close();
  server.requests.length = 0;
});

/** What the README's retry table promises for a catalogue row. */
function expectedAttempts(code: ErrorCode): number {
  const info = ERROR_CODES[code];
  if (info.retryable) return MAX_ATTEMPTS;
  // The answer carries `Date` (node:http adds it), so the clock is corrected and the event re-sent once.
  if (info.action === 'check-clock') return 2;
  return 1;
}

/** Sends one event with fast retries and gives back the LoyaltyApiError it was rejected with. */
async function apiErrorOfSend(): Promise<unknown> {
  client = clientFor(server, { retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 1, maxDelayMs: 2 } });
  const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(LoyaltyApiError);
  return error;
}

describe('retry policy, by the code of the error envelope (every code of section 7)', () => {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => ({
    code,
    ...ERROR_CODES[code],
    attempts: expectedAttempts(code),
  }));

  it.each(rows)('$status $code: $attempts attempt(s), retryable $retryable, action $action', async (row) => {
    server.script = (_req, res) => fail(res, row.status, row.code);
    expect(await apiErrorOfSend()).toMatchObject({
      status: row.status,
      code: row.code,
      action: row.action,
      retryable: row.retryable,
      attempts: row.attempts,
      correlationId: `corr-${row.code}`,
    });
    expect(server.requests).toHaveLength(row.attempts);
    const eventIds = new Set(server.requests.map((r) => JSON.parse(r.body.toString()).eventId));
    expect(eventIds.size).toBe(1);
  });

  it('stops at once on WRONG_EVENT_DIRECTION even though the status alone says nothing', async () => {
    server.script = (_req, res) => fail(res, 400, 'WRONG_EVENT_DIRECTION');
    client = clientFor(server);
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({
      attempts: 1,
      action: 'stop',
    });
  });

  it('judges by the code, not the status: a 500 carrying a 400-family code stops', async () => {
    server.script = (_req, res) => fail(res, 500, 'PARTNER_INVOICE_ALREADY_EARNED');
    client = clientFor(server);
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({
      attempts: 1,
      retryable: false,
    });
  });

  it('retries a 503 code and succeeds once the service recovers', async () => {
    server.script = (_req, res, i) => (i < 2 ? fail(res, 503, 'EVENT_HANDLER_NOT_REGISTERED') : ok(res));
    client = clientFor(server);
    await expect(
      client.send('InvoiceRefunded', {
        externalInvoiceId: 'r',
        externalOriginalInvoiceId: 'o',
        refundedAmount: 1,
      }),
    ).resolves.toMatchObject({ attempts: 3 });
  });
});

describe('retry policy, for codes and answers the catalogue does not know', () => {
  const cases = [
    {
      what: 'an unknown code on a 503',
      status: 503,
      code: 'SOMETHING_NEW',
      body: true,
      attempts: MAX_ATTEMPTS,
      retryable: true,
      action: 'retry',
    },
    {
      what: 'an unknown code on a 409',
      status: 409,
      code: 'SOMETHING_NEW',
      body: true,
      attempts: 1,
      retryable: false,
      action: 'stop',
    },
    {
      what: '429 without an envelope',
      status: 429,
      code: 'HTTP_429',
      body: false,
      attempts: MAX_ATTEMPTS,
      retryable: true,
      action: 'retry',
    },
    {
      what: '500 without an envelope',
      status: 500,
      code: 'HTTP_500',
      body: false,
      attempts: MAX_ATTEMPTS,
      retryable: true,
      action: 'retry',
    },
    {
      what: '502 from a proxy, in HTML',
      status: 502,
      code: 'HTTP_502',
      body: false,
      attempts: MAX_ATTEMPTS,
      retryable: true,
      action: 'retry',
    },
    {
      what: '404 without an envelope',
      status: 404,
      code: 'HTTP_404',
      body: false,
      attempts: 1,
      retryable: false,
      action: 'stop',
    },
  ] as const;

  it.each(cases)('$what: $attempts attempt(s), code $code, retryable $retryable', async (row) => {
    server.script = (_req, res) => {
      if (row.body) return fail(res, row.status, row.code);
      res.writeHead(row.status, { 'content-type': 'text/html' });
      res.end('<html>upstream trouble</html>');
    };
    expect(await apiErrorOfSend()).toMatchObject({
      status: row.status,
      code: row.code,
      retryable: row.retryable,
      action: row.action,
      attempts: row.attempts,
    });
    expect(server.requests).toHaveLength(row.attempts);
  });
});
