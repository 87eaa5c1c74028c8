import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type InboundEventType, LoyaltyClient, type PayloadInput } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { causalKeys } from '../../src/outbox/causal-keys.js';
import { conflicts } from './fixtures/conflicts.js';
import { latencyProxy } from './fixtures/latency-proxy.js';

/*
 * A kiosk's backlog after an outage: 2,005 events (branch syncs, then per customer a sync, six
 * sales, a coupon sync, a coupon use and its cancellation, over 200 customers) drain through a
 * proxy adding 50 ms per request, with 503s and dropped connections injected. The emulator's
 * own log of arrivals is the witness of order and of credits.
 */

type Queued = { [T in InboundEventType]: { eventType: T; payload: PayloadInput<T> } }[InboundEventType];

function kioskBacklog(customers: number): Queued[] {
  const branches = ['b-0', 'b-1', 'b-2', 'b-3', 'b-4'];
  const queued: Queued[] = branches.map((id) => ({
    eventType: 'BranchSynced',
    payload: { externalBranchId: id, name: `Branch ${id}`, isActive: true },
  }));
  const sale = (c: number, n: number): Queued => ({
    eventType: 'InvoiceEarned',
    payload: {
      externalInvoiceId: `i-${c}-${n}`,
      externalCustomerId: `c-${c}`,
      externalBranchId: branches[(c + n) % branches.length]!,
      subtotalAfterDiscountBeforeVat: 10 + n,
      earnType: 'Points',
      channel: 'Pos',
    },
  });
  const steps: ((c: number) => Queued)[] = [
    (c) => ({
      eventType: 'CustomerSynced',
      payload: { externalCustomerId: `c-${c}`, phone: `+9665${String(c).padStart(8, '0')}` },
    }),
    (c) => sale(c, 1),
    (c) => sale(c, 2),
    (c) => ({
      eventType: 'CouponSynced',
      payload: {
        externalCouponId: `k-${c}`,
        name: 'Ten off',
        discountType: 'FixedAmount',
        discountValue: 10,
      },
    }),
    (c) => sale(c, 3),
    (c) => ({
      eventType: 'CouponUsed',
      payload: { externalCouponId: `k-${c}`, externalCustomerId: `c-${c}`, externalInvoiceId: `i-${c}-3` },
    }),
    (c) => sale(c, 4),
    (c) => ({
      eventType: 'CouponUsageCancelled',
      payload: { externalCouponId: `k-${c}`, externalInvoiceId: `i-${c}-3` },
    }),
    (c) => sale(c, 5),
    (c) => sale(c, 6),
  ];
  // Customers come and go through the day: their events interleave.
  for (const step of steps) for (let c = 0; c < customers; c++) queued.push(step(c));
  return queued;
}

let work: string;
const emulator = createEmulator();
let proxy: Awaited<ReturnType<typeof latencyProxy>>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outbox-drain-'));
  const { url } = await emulator.listen();
  proxy = await latencyProxy(url, 50);
});
afterAll(async () => {
  await proxy?.close();
  await emulator.close();
  await rm(work, { recursive: true, force: true });
});

describe('a causal, pipelined drain through a 50 ms link', () => {
  it('sends 16 at once, never an event before the last attempt of one it follows, and credits each once', async () => {
    const merchant = emulator.createMerchant({ autoConfirmBranches: true });
    const client = new LoyaltyClient({
      baseUrl: proxy.url,
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5, budget: false },
    });
    const outbox = createOutbox({
      client,
      store: fileStore(join(work, 'kiosk')),
      defaultTenantId: merchant.tenantId,
      maxInFlight: 16,
      retryDelayMs: 5,
      maxRetryDelayMs: 20,
    });
    await outbox.start();
    // Offline: the backlog builds up while the tenant sends nothing.
    await outbox.stopTenant(merchant.tenantId, 'offline');
    const backlog = kioskBacklog(200);
    const ids: string[] = [];
    for (let i = 0; i < backlog.length; i += 100) {
      const chunk = backlog.slice(i, i + 100);
      for (const { eventId } of await Promise.all(
        chunk.map(({ eventType, payload }) => outbox.enqueue(eventType, payload as never)),
      ))
        ids.push(eventId);
    }
    emulator.injectFaults({
      kinds: ['CONCURRENCY_CONFLICT', 'reset'],
      rate: 0.05,
      seed: 11,
      endpoints: ['events'],
    });

    await outbox.resumeTenant(merchant.tenantId);
    while (outbox.stats().pending > 0) await outbox.flush();
    const stats = outbox.stats();
    await outbox.close();
    await client.close();
    emulator.clearFaults();

    expect(ids).toHaveLength(2_005);
    expect(stats).toMatchObject({ pending: 0, parked: 0, dead: 0, expired: 0 });
    expect(proxy.peak()).toBe(16);

    const arrivals = emulator.events({ tenantId: merchant.tenantId });
    expect(arrivals.some((record) => record.outcome === 'fault')).toBe(true);
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    const credits = new Map<string, number>();
    arrivals.forEach((record, i) => {
      const id = record.eventId!;
      if (!first.has(id)) first.set(id, i);
      last.set(id, i);
      if (record.outcome === 'processed') credits.set(id, (credits.get(id) ?? 0) + 1);
    });
    expect(ids.filter((id) => credits.get(id) !== 1)).toEqual([]);

    const keys = backlog.map((event) => causalKeys(event));
    const overtaken: string[] = [];
    for (let later = 0; later < backlog.length; later++) {
      for (let earlier = 0; earlier < later; earlier++) {
        if (!conflicts(keys[earlier]!, keys[later]!)) continue;
        if (first.get(ids[later]!)! < last.get(ids[earlier]!)!) {
          overtaken.push(
            `${backlog[later]!.eventType} #${later} before ${backlog[earlier]!.eventType} #${earlier}`,
          );
        }
      }
    }
    expect(overtaken).toEqual([]);
  }, 120_000);
});
