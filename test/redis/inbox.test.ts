import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStoreError, redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver, type StoredDelivery } from 'loyalty-partner-sdk/webhooks';
import { afterAll, expect, it, vi } from 'vitest';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

/* Issue 42 items 1, 2, 3, 8, 9 and 10 on the Redis inbox. */

const delivery = (overrides: Partial<StoredDelivery> = {}): StoredDelivery => ({
  eventId: randomUUID(),
  eventType: 'LoyaltyRuleChanged',
  tenantId: 'merchant-1',
  rawBody: '{}',
  correlationId: randomUUID(),
  signatureTimestamp: 1_764_000_000,
  secretIndex: 0,
  receivedAt: Date.now(),
  ...overrides,
});

describeWithRedis('redisInbox', (url) => {
  const redis = new Redis(url);
  afterAll(() => redis.disconnect());
  const fresh = (leaseMs = 60_000) => {
    const prefix = `${uniqueName('inbox')}:`;
    return { prefix, inbox: redisInbox(redis, { prefix, leaseMs }) };
  };

  it('parks a stored delivery whose record vanished, and says so once through claimDue (never an empty stub claimed forever)', async () => {
    const { prefix, inbox } = fresh();
    const [gone, kept] = [delivery(), delivery()];
    await inbox.store(gone, 'pending');
    await inbox.store(kept, 'pending');
    await redis.del(`${prefix}{inbox}:e:${gone.eventId}`); // as an eviction would
    const lost = await inbox.claimDue('w', 10).catch((err: unknown) => err);
    expect(lost).toBeInstanceOf(RedisStoreError);
    expect(lost).toMatchObject({ code: 'DELIVERY_LOST', message: expect.stringContaining(gone.eventId) });
    expect((await inbox.claimDue('w', 10)).map((claim) => claim.eventId)).toEqual([kept.eventId]);
    expect(await inbox.stats()).toMatchObject({ pending: 1, parked: 1 });
    const [parked] = await inbox.list({ state: 'parked' });
    expect(parked).toMatchObject({ eventId: gone.eventId, lastError: expect.stringContaining('evicted') });
    expect(await inbox.replay(gone.eventId)).toBe(false); // its body is gone
    // The service's copy is the one left: sent again, it is stored and runs.
    expect(await inbox.store(gone, 'pending')).toBe('stored');
    expect((await inbox.claimDue('w', 10)).map((claim) => claim.eventId)).toEqual([gone.eventId]);
  });

  it('parks a lost delivery under a running deferred receiver: nothing stays pending', async () => {
    const { prefix, inbox } = fresh();
    const receiver = createReceiver({
      secrets: SECRET,
      inbox,
      deferred: true,
      handlers: { LoyaltyRuleChanged: () => undefined },
    });
    const event = outboundEvent('LoyaltyRuleChanged');
    await receiver.handle(signedDelivery(event));
    await redis.del(`${prefix}{inbox}:e:${event.eventId}`);
    await receiver.start();
    try {
      const deadline = Date.now() + 20_000;
      while ((await inbox.stats()).parked === 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await inbox.stats()).toMatchObject({ pending: 0, parked: 1 });
    } finally {
      await receiver.close();
    }
  });

  it('drops from the due index a record re-created without its body by an immediate receipt', async () => {
    const { prefix, inbox } = fresh();
    const d = delivery();
    await inbox.store(d, 'pending');
    await redis.del(`${prefix}{inbox}:e:${d.eventId}`);
    const key = { eventId: d.eventId, eventType: d.eventType, tenantId: d.tenantId };
    expect(await inbox.begin(key)).toBe('new'); // the service sent it again, to an immediate receiver
    expect(await inbox.claimDue('w', 10)).toEqual([]);
    expect(await redis.zscore(`${prefix}{inbox}:due`, d.eventId)).toBeNull();
    await inbox.complete(key);
    expect(await inbox.begin(key)).toBe('done');
    expect(await inbox.stats()).toMatchObject({ pending: 0 });
  });

  it('refuses to discard a delivery while its handler runs; discards it once the claim ended', async () => {
    const { inbox } = fresh();
    const d = delivery();
    await inbox.store(d, 'pending');
    const [claim] = await inbox.claimDue('w', 10);
    expect(await inbox.discard(d.eventId)).toBe(false);
    expect(await inbox.markFailed(claim!, { error: 'boom', retryInMs: 60_000 })).toBe(true);
    expect(await inbox.discard(d.eventId)).toBe(true);
    expect(await inbox.stats()).toMatchObject({ pending: 0, handled: 1 });
    // Immediate receipt holds the same record: a running immediate claim is not discarded either.
    const key = { eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: '' };
    expect(await inbox.begin(key)).toBe('new');
    expect(await inbox.discard(key.eventId)).toBe(false);
  });

  it('writes the audit entry of replay and discard in the same script, with the state it came from', async () => {
    const { prefix, inbox } = fresh();
    const d = delivery();
    await inbox.store(d, 'parked', 'unknown type');
    expect(await inbox.replay(d.eventId, { actor: 'ops@host', detail: { reason: 'upgraded' } })).toBe(true);
    expect(await inbox.replay(d.eventId, { actor: 'ops@host' })).toBe(false); // refused: nothing written
    expect(await inbox.discard(d.eventId, { actor: 'ops@host' })).toBe(true);
    const entries = (await redis.lrange(`${prefix}{inbox}:audit`, 0, -1)).map((e) => JSON.parse(e));
    expect(entries).toEqual([
      {
        at: expect.any(Number),
        actor: 'ops@host',
        action: 'inbox.discard',
        target: d.eventId,
        detail: { from: 'pending' },
      },
      {
        at: expect.any(Number),
        actor: 'ops@host',
        action: 'inbox.replay',
        target: d.eventId,
        detail: { reason: 'upgraded', from: 'parked' },
      },
    ]);
  });

  it("computes a retry's due time on Redis's clock, not on a worker's clock 10 minutes behind", async () => {
    const { inbox } = fresh();
    const d = delivery();
    await inbox.store(d, 'pending');
    const [claim] = await inbox.claimDue('w', 10);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 10 * 60_000 });
    try {
      expect(await inbox.markFailed(claim!, { error: 'boom', retryInMs: 60_000 })).toBe(true);
      expect(await inbox.claimDue('w', 10)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    const [pending] = await inbox.list({ state: 'pending' });
    expect(pending!.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now() + 30_000);
  });

  it('pages the tenants, busiest first, with the total, and one tenant on request', async () => {
    const { inbox } = fresh();
    for (let t = 0; t < 5; t++)
      for (let n = 0; n <= t; n++)
        await inbox.store(delivery({ tenantId: `t${t}` }), n % 2 ? 'parked' : 'pending');
    const page = await inbox.statsByTenant!({ limit: 2 });
    expect(page.totalTenants).toBe(5);
    expect(page.tenants.map((t) => t.tenantId)).toEqual(['t4', 't3']);
    expect(page.tenants[0]!.states).toEqual({ pending: 3, parked: 2 });
    const one = await inbox.statsByTenant!({ tenantId: 't1' });
    expect(one).toEqual({
      tenants: [{ tenantId: 't1', states: { pending: 1, parked: 1 }, oldestPendingAt: expect.any(Number) }],
      totalTenants: 1,
    });
  });
});
