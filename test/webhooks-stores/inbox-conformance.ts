import { randomUUID } from 'node:crypto';
import type {
  ClaimedDelivery,
  DeferredInboxStore,
  InboxKey,
  InboxStore,
  StoredDelivery,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';

/** Builds a store of the kind under test, on its own schema or prefix, with this lease. */
export type MakeInbox = (options: { leaseMs: number }) => DeferredInboxStore<unknown>;

/**
 * What every inbox store promises, over its one record per event id: immediate receipt (begin,
 * complete, release, extend, transaction), deferred receipt (store, claimDue and the outcomes),
 * switching between the two on the same store, and the admin part (stats, statsByTenant, list,
 * replay, discard, cleanup). Run by stores.test.ts against every store in `stores.ts`. Stores may
 * share a schema or prefix with other tests, so counts are compared before and after, and other
 * tests' due deliveries are put off when met.
 */
export function inboxConformance(make: MakeInbox): void {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const tenant = `tenant-${randomUUID()}`;
  const key = (tenantId = tenant): InboxKey => ({
    eventId: randomUUID(),
    eventType: 'LoyaltyRuleChanged',
    tenantId,
  });
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
  const inbox = () => make({ leaseMs: 600_000 });
  /** Claims the way the receiver does: through `transaction` when the store has one. */
  const claimAndFinish = async (store: InboxStore<unknown>, k: InboxKey, work = async () => {}) => {
    if (store.transaction) return store.transaction(k, work);
    const claim = await store.begin(k);
    if (claim === 'new') {
      await work();
      await store.complete(k);
    }
    return claim;
  };
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
  /** Whether a claim (after putting off other tests' due deliveries) returns this event. */
  const claimable = async (store: DeferredInboxStore<unknown>, eventId: string) => {
    for (const claim of await store.claimDue('owner-z', 1000)) {
      if (claim.eventId === eventId) return true;
      await store.markFailed(claim, { error: 'later', retryInMs: 60_000 });
    }
    return false;
  };
  const stateOf = async (store: DeferredInboxStore<unknown>, eventId: string, tenantId = tenant) => {
    for (const state of ['pending', 'handled', 'dead', 'parked'] as const)
      if ((await store.list({ state, tenantId, limit: 10_000 })).some((r) => r.eventId === eventId))
        return state;
    return undefined;
  };

  describe('immediate receipt', () => {
    it('lets exactly one of 20 concurrent claims of one event id through', async () => {
      const store = inbox();
      const k = key();
      let runs = 0;
      const claims = await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction ? store.transaction(k, async () => void runs++) : store.begin(k),
        ),
      );
      expect(claims.filter((claim) => claim === 'new')).toHaveLength(1);
      if (store.transaction) expect(runs).toBe(1);
      else expect(claims.filter((claim) => claim === 'in-progress')).toHaveLength(19);
    });

    it('answers done for a finished event, under any tenant id (the event id alone is the key)', async () => {
      const store = inbox();
      const k = key('merchant-1');
      expect(await claimAndFinish(store, k)).toBe('new');
      expect(await store.begin(k)).toBe('done');
      expect(await store.begin({ ...k, tenantId: 'someone-else' })).toBe('done');
      const other = key();
      expect(await claimAndFinish(store, other)).toBe('new');
    });

    it('gives a released claim to the next delivery, and takes over one older than the lease', async () => {
      // A claim that must still be held gets a lease no pause of a loaded machine outlasts; the
      // takeover, a short one and a wait well past it.
      const store = inbox();
      const k = key();
      expect(await store.begin(k)).toBe('new');
      await store.release(k);
      expect(await store.begin(k)).toBe('new');
      expect(await store.begin(k)).toBe('in-progress');
      if (store.extend) expect(await store.extend(k)).toBe(true);
      const short = make({ leaseMs: 150 });
      const lapsing = key();
      expect(await short.begin(lapsing)).toBe('new');
      await sleep(350);
      expect(await short.begin(lapsing)).toBe('new');
    });

    it('runs transactional work once, and leaves no claim when the work throws', async () => {
      const store = inbox();
      if (!store.transaction) return expect(store.transaction).toBeUndefined();
      const k = key();
      await expect(
        store.transaction(k, async () => Promise.reject(new Error('handler failed'))),
      ).rejects.toThrow('handler failed');
      let runs = 0;
      expect(await store.transaction(k, async () => void runs++)).toBe('new');
      expect(await store.transaction(k, async () => void runs++)).toBe('done');
      expect(runs).toBe(1);
    });

    it('answers in-progress to a copy that arrives while the first copy is still running', async () => {
      const store = inbox();
      const k = key();
      if (!store.transaction) {
        expect(await store.begin(k)).toBe('new');
        return expect(await store.begin(k)).toBe('in-progress');
      }
      let finish!: () => void;
      const first = store.transaction(k, () => new Promise<void>((resolve) => (finish = resolve)));
      await sleep(50);
      // The copy waits the lock timeout for the first transaction, then gives up.
      expect(await store.transaction(k, async () => undefined)).toBe('in-progress');
      finish();
      expect(await first).toBe('new');
    });
  });

  describe('deferred receipt', () => {
    it('stores a delivery once: a second copy is a duplicate, and the claim gives back every field', async () => {
      const store = inbox();
      const d = delivery();
      expect(await store.store(d, 'pending')).toBe('stored');
      expect(await store.store({ ...d, tenantId: 'other' }, 'pending')).toBe('duplicate');
      expect(await claimOne(store, d.eventId)).toEqual({ ...d, owner: 'owner-a', attempt: 1 });
    });

    it('never gives one delivery to two claimants while its lease lives; renews it; a later claimant takes it over', async () => {
      // Renewed every 200 ms, a 1 s lease outlives its first second only by being renewed; a
      // pause of the machine would have to last 800 ms to end it between two renewals.
      const store = make({ leaseMs: 1_000 });
      const d = delivery();
      await store.store(d, 'pending');
      const first = await claimOne(store, d.eventId);
      const others = await Promise.all(
        Array.from({ length: 5 }, (_, i) => store.claimDue(`owner-${i}`, 100)),
      );
      expect(others.flat().some((c) => c.eventId === d.eventId)).toBe(false);
      for (let i = 0; i < 6; i++) {
        await sleep(200);
        expect(await store.extendLease('owner-a', [d.eventId])).toEqual([]);
      }
      expect(await claimable(store, d.eventId)).toBe(false);
      await sleep(1_300);
      const second = await claimOne(store, d.eventId, 'owner-b');
      expect(second.attempt).toBe(2);
      expect(await store.extendLease('owner-a', [d.eventId])).toEqual([d.eventId]);
      expect(await store.markHandled(first)).toBe(false);
      expect(await store.markHandled(second)).toBe(true);
    });

    it("lists a stored delivery's record alone: never its body, correlation id or signature details", async () => {
      const store = inbox();
      const d = delivery();
      await store.store(d, 'pending');
      const [listed] = (await store.list({ state: 'pending', tenantId: tenant })).filter(
        (r) => r.eventId === d.eventId,
      );
      const fields = ['eventId', 'eventType', 'tenantId', 'state', 'attempts', 'lastError', 'receivedAt'];
      expect(
        Object.keys(listed!).filter((key) => ![...fields, 'nextAttemptAt', 'settledAt'].includes(key)),
      ).toEqual([]);
      expect(listed).toMatchObject({ eventId: d.eventId, state: 'pending', attempts: 0 });
    });

    it("retries a failed delivery after retryInMs on the store's clock, then keeps it dead until replayed", async () => {
      const store = inbox();
      const d = delivery();
      await store.store(d, 'pending');
      const first = await claimOne(store, d.eventId);
      expect(await store.markFailed(first, { error: 'boom 1', retryInMs: 60_000 })).toBe(true);
      const [pending] = (await store.list({ state: 'pending', tenantId: tenant })).filter(
        (r) => r.eventId === d.eventId,
      );
      expect(pending).toMatchObject({ attempts: 1, lastError: 'boom 1' });
      expect(pending!.nextAttemptAt!.getTime() - Date.now()).toBeGreaterThan(50_000);
      expect(await claimable(store, d.eventId)).toBe(false);
      expect(await store.replay(d.eventId)).toBe(false); // pending already

      const retried = delivery();
      await store.store(retried, 'pending');
      const one = await claimOne(store, retried.eventId);
      expect(await store.markFailed(one, { error: 'boom 1', retryInMs: 50 })).toBe(true);
      await sleep(150);
      const two = await claimOne(store, retried.eventId);
      expect(two.attempt).toBe(2);
      expect(await store.markFailed(two, { error: 'boom 2' })).toBe(true);
      expect(
        (await store.list({ state: 'dead', tenantId: tenant })).find((r) => r.eventId === retried.eventId),
      ).toMatchObject({ attempts: 2, lastError: 'boom 2' });
      await store.cleanup(1000);
      expect(await stateOf(store, retried.eventId)).toBe('dead');
      expect(await store.replay(retried.eventId)).toBe(true);
      const again = await claimOne(store, retried.eventId);
      expect(again.attempt).toBe(1);
      expect(await store.markHandled(again)).toBe(true);
    });

    it('parks a delivery with its reason, lists one tenant oldest first up to the limit', async () => {
      const store = inbox();
      const own = `tenant-${randomUUID()}`;
      // Each received at its own millisecond: two received in the same one may list in either order.
      const now = Date.now();
      const ds = [
        delivery({ tenantId: own, receivedAt: now - 2000 }),
        delivery({ tenantId: own, receivedAt: now - 1000 }),
      ];
      for (const d of ds) await store.store(d, 'pending');
      for (const claim of await claimAll(
        store,
        ds.map((d) => d.eventId),
      ))
        expect(await store.markParked(claim, 'unknown type')).toBe(true);
      const parkedOnReceipt = delivery({ tenantId: own, receivedAt: now });
      expect(await store.store(parkedOnReceipt, 'parked', 'schemaVersion 2 is not supported')).toBe('stored');
      expect(await claimable(store, parkedOnReceipt.eventId)).toBe(false);
      const listed = await store.list({ state: 'parked', tenantId: own });
      expect(listed.map((r) => r.eventId)).toEqual([...ds, parkedOnReceipt].map((d) => d.eventId));
      expect(listed[2]).toMatchObject({ lastError: 'schemaVersion 2 is not supported', attempts: 0 });
      expect(listed[0]?.receivedAt).toBeInstanceOf(Date);
      expect(await store.list({ state: 'parked', tenantId: own, limit: 1 })).toHaveLength(1);
    });

    it('runs a transactional run once and rolls its writes back when the claim was lost', async () => {
      const store = make({ leaseMs: 200 });
      if (!store.runHandled) return expect(store.runHandled).toBeUndefined();
      const d = delivery();
      await store.store(d, 'pending');
      const first = await claimOne(store, d.eventId);
      await sleep(400);
      const second = await claimOne(store, d.eventId, 'owner-b');
      let ran = 0;
      expect(await store.runHandled(first, async () => void ran++)).toBe(false);
      expect(await store.runHandled(second, async () => void ran++)).toBe(true);
      expect(ran).toBe(1);
      expect(await stateOf(store, d.eventId)).toBe('handled');
    });
  });

  describe('switching modes on the same store', () => {
    it('a delivery handled immediately is a duplicate to a deferred receiver', async () => {
      const store = inbox();
      const k = key();
      await claimAndFinish(store, k);
      expect(await store.store(delivery({ eventId: k.eventId }), 'pending')).toBe('duplicate');
      expect(await claimable(store, k.eventId)).toBe(false);
    });

    it('a stored delivery is run by an immediate receipt, once: the deferred runner never runs it again', async () => {
      const store = inbox();
      const d = delivery();
      await store.store(d, 'pending');
      let runs = 0;
      expect(await claimAndFinish(store, d, async () => void runs++)).toBe('new');
      expect(await claimAndFinish(store, d, async () => void runs++)).toBe('done');
      expect(runs).toBe(1);
      expect(await claimable(store, d.eventId)).toBe(false);
      expect(await store.store(d, 'pending')).toBe('duplicate');
      expect(await stateOf(store, d.eventId)).toBe('handled');
    });

    it('a receipt still running gets the body from a deferred copy; released, the runner runs it', async () => {
      const store = inbox();
      const d = delivery();
      expect(await store.begin(d)).toBe('new');
      expect(await store.store(d, 'pending')).toBe('stored');
      expect(await store.store(d, 'pending')).toBe('duplicate');
      expect(await claimable(store, d.eventId)).toBe(false); // the receipt's lease holds it
      await store.release(d);
      const claim = await claimOne(store, d.eventId);
      expect(claim.rawBody).toBe(d.rawBody);
      expect(await store.markHandled(claim)).toBe(true);
      expect(await store.begin(d)).toBe('done');
    });

    it('a receipt that completes after a deferred copy arrived leaves the delivery handled', async () => {
      const store = inbox();
      const d = delivery();
      expect(await store.begin(d)).toBe('new');
      expect(await store.store(d, 'pending')).toBe('stored');
      await store.complete(d);
      expect(await claimable(store, d.eventId)).toBe(false);
      expect(await stateOf(store, d.eventId)).toBe('handled');
    });

    it('a dead delivery sent again is run again by an immediate receipt', async () => {
      const store = inbox();
      const d = delivery();
      await store.store(d, 'pending');
      await store.markFailed(await claimOne(store, d.eventId), { error: 'boom' });
      expect(await store.begin(d)).toBe('new');
      await store.complete(d);
      expect(await stateOf(store, d.eventId)).toBe('handled');
    });
  });

  describe('admin', () => {
    it('discards a waiting delivery into a duplicate that cannot be replayed, never one whose handler runs', async () => {
      const store = inbox();
      const before = await store.stats();
      const [waiting, running] = [delivery(), delivery()];
      await store.store(waiting, 'pending');
      await store.store(running, 'pending');
      const claims = await claimAll(store, [waiting.eventId, running.eventId]);
      await store.markFailed(claims[0]!, { error: 'boom', retryInMs: 60_000 });
      expect(await store.discard(running.eventId)).toBe(false);
      expect(await store.discard(waiting.eventId)).toBe(true);
      expect(await store.discard(waiting.eventId)).toBe(false);
      expect(await store.replay(waiting.eventId)).toBe(false);
      expect(await store.store(waiting, 'pending')).toBe('duplicate');
      expect(await store.markHandled(claims[1]!)).toBe(true);
      const after = await store.stats();
      expect(after.handled - before.handled).toBeGreaterThanOrEqual(2);
      const immediate = key();
      expect(await store.begin(immediate)).toBe('new');
      expect(await store.discard(immediate.eventId)).toBe(false);
    });

    it('counts pending, dead and parked per tenant, busiest first, paged, with the number of tenants', async () => {
      const store = inbox();
      const [busy, quiet] = [`tenant-a-${randomUUID()}`, `tenant-b-${randomUUID()}`];
      const oldest = Date.now() - 5000;
      for (const d of [
        delivery({ tenantId: busy, receivedAt: oldest + 1000 }),
        delivery({ tenantId: busy, receivedAt: oldest }),
        delivery({ tenantId: busy }),
      ])
        await store.store(d, 'pending');
      const [toDead, toHandle] = [delivery({ tenantId: quiet }), delivery({ tenantId: quiet })];
      await store.store(toDead, 'pending');
      await store.store(toHandle, 'pending');
      const [dead, handled] = await claimAll(store, [toDead.eventId, toHandle.eventId]);
      await store.markFailed(dead!, { error: 'boom' });
      await store.markHandled(handled!);

      expect(store.statsByTenant).toBeTypeOf('function');
      const one = await store.statsByTenant!({ tenantId: quiet });
      expect(one).toEqual({
        tenants: [{ tenantId: quiet, states: { dead: 1 }, oldestPendingAt: null }],
        totalTenants: 1,
      });
      const all = await store.statsByTenant!({ limit: 100_000 });
      const ours = all.tenants.filter((t) => t.tenantId === busy || t.tenantId === quiet);
      expect(ours).toEqual([
        { tenantId: busy, states: { pending: 3 }, oldestPendingAt: oldest },
        { tenantId: quiet, states: { dead: 1 }, oldestPendingAt: null },
      ]);
      expect(all.totalTenants).toBe(all.tenants.length);
      const top = await store.statsByTenant!({ limit: 1 });
      expect(top.tenants).toHaveLength(1);
      expect(top.totalTenants).toBe(all.totalTenants);
      expect((await store.statsByTenant!()).tenants.length).toBeLessThanOrEqual(50);
    });
  });
}
