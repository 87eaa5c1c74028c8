import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { createEmulator, type Emulator } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forward } from './fixtures/forward.js';
import { customer, invoice, recordingHooks, until } from './fixtures/outbox-harness.js';

/*
 * A wait the service asks for (a pause, a Retry-After) is kept in the file store with its due
 * time: a restarted outbox sends nothing of the tenant before it. Real HTTP: a gateway on
 * loopback answers the first request with the service's instruction, then forwards every
 * request to the emulator, noting when each arrives.
 */

let dir: string;
let emulator: Emulator;
let gateway: Server;
let gatewayUrl: string;
/** Arrivals at the gateway that were forwarded, in real milliseconds. */
let forwarded: number[];
let instruction: { status: number; code: string } | undefined;
/** When the gateway gave the instruction: the wait the outbox keeps starts no earlier. */
let instructedAt: number;
const clients: LoyaltyClient[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'outbox-waits-'));
  emulator = createEmulator();
  const { url } = await emulator.listen();
  forwarded = [];
  gateway = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const told = instruction;
      if (told) {
        instruction = undefined;
        instructedAt = Date.now();
        res.writeHead(told.status, { 'content-type': 'application/json', 'retry-after': '120' });
        res.end(JSON.stringify({ code: told.code, message: 'wait', correlationId: 'c-1' }));
        return;
      }
      forwarded.push(Date.now());
      const answer = await forward(url, req, chunks);
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await new Promise((resolve) => gateway.close(resolve));
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a wait the service asked for, across a restart', () => {
  it.each([
    ['a pause (503 INTEGRATION_PAUSED)', 503, 'INTEGRATION_PAUSED'],
    ['a rate limit (429)', 429, 'RATE_LIMITED'],
  ])(
    'with Retry-After: 120 on %s, the restarted outbox sends nothing of the tenant before the due time, then everything once',
    async (_, status, code) => {
      const merchant = emulator.createMerchant({ autoConfirmBranches: true });
      const outboxOf = (now: () => number, hooks = {}) => {
        const client = new LoyaltyClient({
          baseUrl: gatewayUrl,
          apiKey: merchant.apiKey,
          signingSecret: merchant.signingSecret,
          retry: { maxAttempts: 1 },
        });
        clients.push(client);
        return createOutbox({
          client,
          store: fileStore(dir),
          defaultTenantId: merchant.tenantId,
          maxInFlight: 1,
          now,
          hooks,
        });
      };

      instruction = { status, code };
      const { hooks, named } = recordingHooks();
      const first = outboxOf(Date.now, hooks);
      await first.start();
      const ids = [
        (await first.enqueue('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true }))
          .eventId,
        (await first.enqueue('CustomerSynced', customer)).eventId,
        (await first.enqueue('InvoiceEarned', invoice('inv-1'))).eventId,
      ];
      await until(() => named('onTenantPaused').length + named('onRetry').length > 0);
      await first.close({ deadlineMs: 0 });
      expect(forwarded).toEqual([]);

      // The process restarts 117 s later (an injected wall clock): 3 s of the 120 s are left.
      const skew = 117_000;
      const restartedAt = Date.now();
      const second = outboxOf(() => Date.now() + skew);
      await second.start();
      await until(() => ids.every((eventId) => emulator.events({ eventId }).length > 0));
      await second.close();

      // Due 120 s after the answer on the first clock: no earlier than instructedAt + 3 s on this
      // machine's clock (allowing the timer's millisecond).
      const dueAt = instructedAt + 120_000 - skew;
      expect(forwarded.length).toBeGreaterThanOrEqual(ids.length);
      for (const arrival of forwarded) expect(arrival).toBeGreaterThanOrEqual(dueAt - 5);
      expect(dueAt).toBeGreaterThan(restartedAt);
      for (const eventId of ids) expect(emulator.events({ eventId })).toHaveLength(1);
    },
    30_000,
  );
});
