import { randomUUID } from 'node:crypto';
import type { ClaimedDelivery, DeferredInboxStore, StoredDelivery } from 'loyalty-partner-sdk/webhooks';
import { expect, it } from 'vitest';

/**
 * What every deferred-capable inbox store promises (the methods of `DeferredInboxStore`), run
 * against memoryInbox, postgresInbox (pg and postgres.js, both modes) and redisInbox. Stores may
 * share a schema or prefix with other tests, so counts are compared before and after.
 */
export function deferredConformance(
  make: (options: { leaseMs: number }) => DeferredInboxStore<unknown>,
): void {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const tenant = `tenant-${randomUUID()}`;
  const delivery = (overrides: Partial<StoredDelivery> = {}): StoredDelivery => ({
    eventId: randomUUID(),
    eventType: 'LoyaltyRuleChanged',
    tenantId: tenant,
    rawBody: '{"eventId":"x","payload":{"text":"zß😀"}}',
    correlationId: randomUUID(),
    signatureTimestamp: 1_764_000_000,
    secretIndex: 1,
    receivedAt: Date.now(),
    ...overrides,
  });
  /** Claims until the deliveries of `eventIds` came back (other tests' rows may be due too). */
  const claimAll = async (store: DeferredInboxStore<unknown>, eventIds: string[], owner = 'owner-a') => {
    const found = new Map<string, ClaimedDelivery>();
    for (let i = 0; i < 50 && found.size < eventIds.length; i++) {
      for (const claim of await store.claimDue(owner, 100)) {
        if (eventIds.includes(claim.eventId)) found.set(claim.eventId, claim);
        else await store.markFailed(claim, { error: 'later', retryInMs: 60_000 });
      }
    }
    if (found.size < eventIds.length) throw new Error(`never claimed all of ${eventIds.join(', ')}`);
    return eventIds.map((id) => found.get(id)!);
  };
  const claimOne = async (store: DeferredInboxStore<unknown>, eventId: string, owner = 'owner-a') =>
    (await claimAll(store, [eventId], owner))[0]!;

  it('stores a delivery once: a second copy is a duplicate, and the claim gives back every field', async () => {
    const store = make({ leaseMs: 60_000 });
    const d = delivery();
    expect(await store.store(d, 'pending')).toBe('stored');
    expect(await store.store({ ...d, tenantId: 'other' }, 'pending')).toBe('duplicate');
    const claim = await claimOne(store, d.eventId);
    expect(claim).toEqual({ ...d, owner: 'owner-a', attempt: 1 });
  });

  it('never gives one delivery to two concurrent claimants while its lease lives, and renews it', async () => {
    const store = make({ leaseMs: 400 });
    const d = delivery();
    await store.store(d, 'pending');
    const claim = await claimOne(store, d.eventId);
    const others = await Promise.all(Array.from({ length: 5 }, (_, i) => store.claimDue(`owner-${i}`, 100)));
    expect(others.flat().some((c) => c.eventId === d.eventId)).toBe(false);
    for (let i = 0; i < 4; i++) {
      await sleep(150);
      expect(await store.extendLease('owner-a', [d.eventId])).toEqual([]);
    }
    expect((await store.claimDue('owner-b', 100)).some((c) => c.eventId === d.eventId)).toBe(false);
    expect(await store.markHandled(claim)).toBe(true);
  });

  it('lets another claimant take a delivery over once its lease ended; the first can no longer record', async () => {
    const store = make({ leaseMs: 150 });
    const d = delivery();
    await store.store(d, 'pending');
    const first = await claimOne(store, d.eventId, 'owner-a');
    await sleep(300);
    const second = await claimOne(store, d.eventId, 'owner-b');
    expect(second.attempt).toBe(2);
    expect(await store.extendLease('owner-a', [d.eventId])).toEqual([d.eventId]);
    expect(await store.markHandled(first)).toBe(false);
    expect(await store.markHandled(second)).toBe(true);
  });

  it('retries a failed delivery when due, then keeps it dead with its last error until replayed', async () => {
    const store = make({ leaseMs: 60_000 });
    const d = delivery();
    await store.store(d, 'pending');
    const first = await claimOne(store, d.eventId);
    expect(await store.markFailed(first, { error: 'boom 1', retryInMs: 100 })).toBe(true);
    const [pending] = (await store.list({ state: 'pending', tenantId: tenant })).filter(
      (r) => r.eventId === d.eventId,
    );
    expect(pending).toMatchObject({ state: 'pending', attempts: 1, lastError: 'boom 1' });
    await sleep(150);
    const second = await claimOne(store, d.eventId);
    expect(second.attempt).toBe(2);
    expect(await store.markFailed(second, { error: 'boom 2' })).toBe(true);
    const dead = (await store.list({ state: 'dead', tenantId: tenant })).find((r) => r.eventId === d.eventId);
    expect(dead).toMatchObject({ state: 'dead', attempts: 2, lastError: 'boom 2', tenantId: tenant });
    expect(await store.cleanup(1000)).toBeGreaterThanOrEqual(0);
    expect((await store.list({ state: 'dead', tenantId: tenant })).map((r) => r.eventId)).toContain(
      d.eventId,
    );

    expect(await store.replay(d.eventId)).toBe(true);
    expect(await store.replay(d.eventId)).toBe(false);
    const again = await claimOne(store, d.eventId);
    expect(again.attempt).toBe(1);
    expect(await store.markHandled(again)).toBe(true);
  });

  it('keeps a parked delivery with its reason; discard makes it a duplicate that cannot be replayed', async () => {
    const store = make({ leaseMs: 60_000 });
    const before = await store.stats();
    const d = delivery();
    expect(await store.store(d, 'parked', 'schemaVersion 2 is not supported')).toBe('stored');
    expect((await store.claimDue('owner-a', 1000)).some((c) => c.eventId === d.eventId)).toBe(false);
    const parked = (await store.list({ state: 'parked', tenantId: tenant })).find(
      (r) => r.eventId === d.eventId,
    );
    expect(parked).toMatchObject({ lastError: 'schemaVersion 2 is not supported', attempts: 0 });
    expect((await store.stats()).parked).toBe(before.parked + 1);
    expect(await store.discard(d.eventId)).toBe(true);
    expect(await store.discard(d.eventId)).toBe(false);
    expect(await store.replay(d.eventId)).toBe(false);
    expect(await store.store(d, 'pending')).toBe('duplicate');
    expect((await store.stats()).parked).toBe(before.parked);
  });

  it('counts pending, dead and parked deliveries per tenant with its oldest pending one, not the handled ones', async () => {
    const store = make({ leaseMs: 60_000 });
    const [waiting, failing] = [`tenant-a-${randomUUID()}`, `tenant-b-${randomUUID()}`];
    const oldest = Date.now() - 5000;
    const pending = [
      delivery({ tenantId: waiting, receivedAt: oldest + 1000 }),
      delivery({ tenantId: waiting, receivedAt: oldest }),
    ];
    const [toDead, toHandle] = [delivery({ tenantId: failing }), delivery({ tenantId: failing })];
    for (const d of [...pending, toDead, toHandle]) await store.store(d, 'pending');
    await store.store(delivery({ tenantId: failing }), 'parked', 'unknown type');
    const [dead, handled] = await claimAll(store, [toDead.eventId, toHandle.eventId]);
    expect(await store.markFailed(dead!, { error: 'boom' })).toBe(true);
    expect(await store.markHandled(handled!)).toBe(true);

    expect(store.statsByTenant).toBeTypeOf('function');
    const tenants = await store.statsByTenant!();
    expect(tenants.filter((t) => t.tenantId === waiting || t.tenantId === failing)).toEqual([
      { tenantId: waiting, states: { pending: 2 }, oldestPendingAt: oldest },
      { tenantId: failing, states: { dead: 1, parked: 1 }, oldestPendingAt: null },
    ]);
    const ids = tenants.map((t) => t.tenantId);
    expect(ids).toEqual([...ids].sort());
  });

  it('parks a claimed delivery, and lists one tenant only, oldest first, up to the limit', async () => {
    const store = make({ leaseMs: 60_000 });
    const own = `tenant-${randomUUID()}`;
    const ds = [delivery({ tenantId: own, receivedAt: Date.now() - 2000 }), delivery({ tenantId: own })];
    for (const d of ds) await store.store(d, 'pending');
    const claims = await claimAll(
      store,
      ds.map((d) => d.eventId),
    );
    for (const claim of claims) expect(await store.markParked(claim, 'unknown type')).toBe(true);
    const listed = await store.list({ state: 'parked', tenantId: own });
    expect(listed.map((r) => r.eventId)).toEqual(ds.map((d) => d.eventId));
    expect(await store.list({ state: 'parked', tenantId: own, limit: 1 })).toHaveLength(1);
    expect(listed[0]?.receivedAt).toBeInstanceOf(Date);
  });
}
