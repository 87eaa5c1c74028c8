import { LoyaltyApiError, type LoyaltyClient } from 'loyalty-partner-sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clientFor, invoice } from './support/client-fixture.js';
import { fail, ok, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
let client: LoyaltyClient;
let down = true;

beforeEach(async () => {
  down = true;
  server = await startScriptedServer((_req, res) => (down ? fail(res, 503, 'INTEGRATION_PAUSED') : ok(res)));
});
afterEach(async () => {
  await client?.close();
  await server.close();
});

describe('retry budget', () => {
  it('stops retrying when the service is down, failing fast with a retryable error, and recovers after successes', async () => {
    client = clientFor(server, {
      retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 2, budget: { capacity: 3, refillPerSuccess: 1 } },
    });

    const first = await client.send('InvoiceEarned', invoice('inv-1')).catch((err: unknown) => err);
    expect(first).toBeInstanceOf(LoyaltyApiError);
    expect(first).toMatchObject({ attempts: 4, retryable: true });
    expect((first as Error).message).toMatch(/retry budget is exhausted/);

    const second = await client.send('InvoiceEarned', invoice('inv-2')).catch((err: unknown) => err);
    expect(second).toMatchObject({ code: 'INTEGRATION_PAUSED', attempts: 1, retryable: true });
    expect((second as Error).message).toMatch(/retry budget is exhausted/);
    expect(server.requests).toHaveLength(5);

    down = false;
    await client.send('InvoiceEarned', invoice('inv-3'));
    down = true;
    await expect(client.send('InvoiceEarned', invoice('inv-4'))).rejects.toMatchObject({ attempts: 2 });
  });

  it('never limits a client built with budget: false', async () => {
    client = clientFor(server, { retry: { maxAttempts: 4, baseDelayMs: 1, maxDelayMs: 2, budget: false } });
    for (let i = 0; i < 3; i += 1) {
      await expect(client.send('InvoiceEarned', invoice(`inv-${i}`))).rejects.toMatchObject({ attempts: 4 });
    }
  });
});
