import { randomUUID } from 'node:crypto';
import type { InboxKey, InboxStore } from 'loyalty-partner-sdk/webhooks';
import { expect, it } from 'vitest';

/**
 * What every inbox store promises (INTERFACES.md), run against memoryInbox, postgresInbox (pg and
 * postgres.js, both modes) and redisInbox (ioredis and node-redis). `make(leaseMs)` builds a
 * store on its own isolated schema or prefix.
 */
export function inboxConformance(make: (options: { leaseMs: number }) => InboxStore<unknown>): void {
  const key = (tenantId = 'merchant-1'): InboxKey => ({
    eventId: randomUUID(),
    eventType: 'LoyaltyRuleChanged',
    tenantId,
  });
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const inbox = () => make({ leaseMs: 600_000 });
  /** Claims the way the receiver does: through `transaction` when the store has one. */
  const claimAndFinish = async (store: InboxStore<unknown>, k: InboxKey) => {
    if (store.transaction) return store.transaction(k, async () => undefined);
    const claim = await store.begin(k);
    if (claim === 'new') await store.complete(k);
    return claim;
  };

  it('lets exactly one of 20 concurrent claims of one event id through', async () => {
    const store = inbox();
    const k = key();
    if (store.transaction) {
      let runs = 0;
      const claims = await Promise.all(
        Array.from({ length: 20 }, () =>
          store.transaction!(k, async () => {
            runs++;
          }),
        ),
      );
      expect(claims.filter((claim) => claim === 'new')).toHaveLength(1);
      expect(runs).toBe(1);
      expect(claims.every((claim) => ['new', 'done', 'in-progress'].includes(claim))).toBe(true);
    } else {
      const claims = await Promise.all(Array.from({ length: 20 }, () => store.begin(k)));
      expect(claims.filter((claim) => claim === 'new')).toHaveLength(1);
      expect(claims.filter((claim) => claim === 'in-progress')).toHaveLength(19);
    }
  });

  it('answers done for a finished event, under any tenant id (the event id alone is the key)', async () => {
    const store = inbox();
    const k = key('merchant-1');
    expect(await claimAndFinish(store, k)).toBe('new');
    expect(await store.begin(k)).toBe('done');
    expect(await store.begin({ ...k, tenantId: 'someone-else' })).toBe('done');
    expect(await store.begin({ ...k, tenantId: '' })).toBe('done');
  });

  it('keeps events apart: finishing one leaves another new', async () => {
    const store = inbox();
    const [a, b] = [key(), key()];
    await claimAndFinish(store, a);
    expect(await claimAndFinish(store, b)).toBe('new');
  });

  it('gives a released claim to the next delivery', async () => {
    const store = inbox();
    const k = key();
    expect(await store.begin(k)).toBe('new');
    await store.release(k);
    expect(await store.begin(k)).toBe('new');
  });

  it('takes over a claim older than the lease (its process died)', async () => {
    const store = make({ leaseMs: 100 });
    const k = key();
    expect(await store.begin(k)).toBe('new');
    expect(await store.begin(k)).toBe('in-progress');
    await sleep(250);
    expect(await store.begin(k)).toBe('new');
  });

  it('runs transactional work once, and leaves no claim when the work throws', async () => {
    const store = inbox();
    if (!store.transaction) {
      expect(store.transaction).toBeUndefined();
      return;
    }
    const k = key();
    await expect(
      store.transaction(k, async () => {
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    let runs = 0;
    expect(
      await store.transaction(k, async () => {
        runs++;
      }),
    ).toBe('new');
    expect(await store.transaction(k, async () => void runs++)).toBe('done');
    expect(runs).toBe(1);
  });

  it('answers in-progress to a copy that arrives while the first copy is still running', async () => {
    const store = inbox();
    const k = key();
    if (!store.transaction) {
      expect(await store.begin(k)).toBe('new');
      expect(await store.begin(k)).toBe('in-progress');
      return;
    }
    let finish!: () => void;
    const first = store.transaction(k, () => new Promise<void>((resolve) => (finish = resolve)));
    await sleep(50);
    // The copy waits the lock timeout for the first transaction, then gives up.
    expect(await store.transaction(k, async () => undefined)).toBe('in-progress');
    finish();
    expect(await first).toBe('new');
    expect(await store.transaction(k, async () => undefined)).toBe('done');
  });
}
