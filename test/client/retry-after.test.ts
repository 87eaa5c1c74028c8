import type { ClientHooks, LoyaltyClient } from 'loyalty-partner-sdk';

type RetryEvent = Parameters<NonNullable<ClientHooks['onRetry']>>[0];

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { fail, ok, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
let client: LoyaltyClient;
let retries: RetryEvent[];

beforeEach(async () => {
  server = await startScriptedServer();
  retries = [];
});
afterEach(async () => {
  await client?.close();
  await server.close();
});

const recordRetries = { hooks: { onRetry: (e: RetryEvent) => void retries.push(e) } };

describe('Retry-After', () => {
  it('is a minimum when given in seconds', async () => {
    server.script = (_req, res, i) =>
      i === 0 ? fail(res, 429, 'RATE_LIMITED', { 'retry-after': '1' }) : ok(res);
    client = clientFor(server, recordRetries);
    await expect(client.send('InvoiceEarned', invoice())).resolves.toMatchObject({ attempts: 2 });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ attempt: 1, code: 'RATE_LIMITED', status: 429 });
    expect(retries[0]!.delayMs).toBeGreaterThanOrEqual(1_000);
  });

  it('is read as an HTTP date against the answer’s own Date header', async () => {
    const serverNow = new Date('2026-11-20T09:00:00Z').getTime();
    server.script = (_req, res, i) =>
      i === 0
        ? fail(res, 503, 'INTEGRATION_PAUSED', {
            date: new Date(serverNow).toUTCString(),
            'retry-after': new Date(serverNow + 1_000).toUTCString(),
          })
        : ok(res);
    client = clientFor(server, recordRetries);
    await client.send('InvoiceEarned', invoice());
    expect(retries[0]!.delayMs).toBe(1_000);
  });

  it('ends the call at once, as retryable, when the wait would pass maxElapsedMs', async () => {
    server.script = (_req, res) => fail(res, 503, 'INTEGRATION_PAUSED', { 'retry-after': '3600' });
    client = clientFor(server, {
      retry: { maxElapsedMs: 60_000, baseDelayMs: 1, maxDelayMs: 4 },
      ...recordRetries,
    });
    const error = await client.send('InvoiceEarned', invoice()).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'INTEGRATION_PAUSED', attempts: 1, retryable: true });
    expect((error as Error).message).toMatch(/maxElapsedMs/);
    expect(retries).toHaveLength(0);
  });
});

describe('backoff', () => {
  it('waits a full-jitter delay below a cap that doubles from baseDelayMs up to maxDelayMs', async () => {
    server.script = (_req, res) => fail(res, 503, 'CONCURRENCY_CONFLICT');
    client = clientFor(server, {
      retry: { maxAttempts: 6, baseDelayMs: 4, maxDelayMs: 20, budget: false },
      ...recordRetries,
    });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toMatchObject({ attempts: 6 });
    const caps = [4, 8, 16, 20, 20];
    expect(retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4, 5]);
    retries.forEach((r, i) => {
      expect(r.delayMs).toBeGreaterThanOrEqual(0);
      expect(r.delayMs).toBeLessThan(caps[i]!);
    });
  });
});
