import { type LoyaltyClient, LoyaltyValidationError, type SyncBatchOptions } from 'loyalty-partner-sdk';

type SyncBatchProgress = Parameters<NonNullable<SyncBatchOptions['onProgress']>>[0];

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_BATCH_ITEMS } from '../../src/contract/index.js';
import { clientFor } from './support/client-fixture.js';
import { fail, ok, type ScriptedServer, startScriptedServer } from './support/scripted-server.js';

let server: ScriptedServer;
let client: LoyaltyClient;
let batchHandlerLive: boolean;

const customers = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    externalCustomerId: `cust-${i}`,
    phone: `+96650${String(i).padStart(7, '0')}`,
  }));
const sent = () => server.requests.map((r) => JSON.parse(r.body.toString()));

beforeEach(async () => {
  batchHandlerLive = true;
  server = await startScriptedServer((req, res) => {
    const { eventType } = JSON.parse(req.body.toString());
    if (eventType.endsWith('Batch') && !batchHandlerLive)
      return fail(res, 503, 'EVENT_HANDLER_NOT_REGISTERED');
    ok(res);
  });
  client = clientFor(server);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('LoyaltyClient.syncBatch', () => {
  it(`splits any number of items into batch events of at most ${MAX_BATCH_ITEMS}, each with its own eventId`, async () => {
    const summary = await client.syncBatch('CustomersSyncedBatch', customers(1_234));

    const events = sent();
    expect(events.map((e) => e.payload.items.length)).toEqual([500, 500, 234]);
    expect(events.every((e) => e.eventType === 'CustomersSyncedBatch')).toBe(true);
    expect(new Set(events.map((e) => e.eventId)).size).toBe(3);
    expect(events[1].payload.items[0].externalCustomerId).toBe('cust-500');
    expect(summary).toMatchObject({
      batchType: 'CustomersSyncedBatch',
      items: 1_234,
      batches: 3,
      fallbacks: 0,
    });
    expect(summary.chunks.map((c) => [c.mode, c.items, c.results[0]?.eventId])).toEqual(
      events.map((e) => ['batch', e.payload.items.length, e.eventId]),
    );
  });

  it('falls back to single-entity events while the batch type is Planned, trying the batch only once', async () => {
    batchHandlerLive = false;
    const progress: SyncBatchProgress[] = [];
    const summary = await client.syncBatch('CustomersSyncedBatch', customers(620), {
      onProgress: (p) => void progress.push(p),
    });

    const events = sent();
    expect(events.filter((e) => e.eventType === 'CustomersSyncedBatch')).toHaveLength(1);
    const singles = events.filter((e) => e.eventType === 'CustomerSynced');
    expect(singles).toHaveLength(620);
    expect(new Set(singles.map((e) => e.payload.externalCustomerId)).size).toBe(620);
    expect(summary).toMatchObject({ items: 620, batches: 0, fallbacks: 2 });
    expect(summary.chunks.map((c) => [c.mode, c.items, c.results.length])).toEqual([
      ['single', 500, 500],
      ['single', 120, 120],
    ]);
    expect(progress).toHaveLength(620);
    expect(progress.at(-1)).toEqual({ sentItems: 620, totalItems: 620, chunk: 1, mode: 'single' });
  });

  it('retries a Planned batch type like any 503 when fallbackToSingle is off', async () => {
    batchHandlerLive = false;
    const error = await client
      .syncBatch('CustomersSyncedBatch', customers(3), { fallbackToSingle: false })
      .catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'EVENT_HANDLER_NOT_REGISTERED', retryable: true, attempts: 6 });
    expect(sent().every((e) => e.eventType === 'CustomersSyncedBatch')).toBe(true);
  });

  it('validates every item before sending anything, naming the index of each item at fault', async () => {
    const items = customers(600) as { externalCustomerId: string; phone: string }[];
    (items[3] as { phone?: string }).phone = undefined;
    (items[555] as unknown as { phone: number }).phone = 42;
    const error = await client.syncBatch('CustomersSyncedBatch', items).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(LoyaltyValidationError);
    expect((error as LoyaltyValidationError).issues.map((issue) => issue.path)).toEqual([
      'items.3.phone',
      'items.555.phone',
    ]);
    expect(server.requests).toHaveLength(0);
  });

  it('refuses an event type that is not a batch type', async () => {
    const syncBatch = client.syncBatch as (type: string, items: unknown[]) => Promise<unknown>;
    await expect(syncBatch.call(client, 'CustomerSynced', [])).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    await expect(syncBatch.call(client, 'LoyaltyRuleChanged', [])).rejects.toMatchObject({
      code: 'WRONG_EVENT_DIRECTION',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('refuses a concurrency below 1 before sending anything', async () => {
    batchHandlerLive = false;
    await expect(
      client.syncBatch('CustomersSyncedBatch', customers(2), { concurrency: 0 }),
    ).rejects.toMatchObject({
      code: 'INVALID_REQUEST',
    });
    expect(server.requests).toHaveLength(0);
  });

  it('sends nothing for an empty list', async () => {
    await expect(client.syncBatch('ProductsSyncedBatch', [])).resolves.toMatchObject({
      items: 0,
      batches: 0,
    });
    expect(server.requests).toHaveLength(0);
  });
});
