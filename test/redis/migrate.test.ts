import { Redis } from 'ioredis';
import { migrateRedisInbox, redisInbox } from 'loyalty-partner-sdk/redis';
import { afterAll, expect, it } from 'vitest';
import { describeWithRedis, uniqueName } from '../support/servers.js';

/*
 * An upgrade from the two-layout inbox (0.1: `inbox:<id>` done markers, `dlv:` stored
 * deliveries): the keys it wrote, as it wrote them, moved into the one-record layout.
 */

describeWithRedis('migrateRedisInbox', (url) => {
  const redis = new Redis(url);
  afterAll(() => redis.disconnect());

  it('moves stored deliveries and done markers: nothing stored is lost, nothing handled runs again', async () => {
    const prefix = `${uniqueName('old')}:`;
    const P = `${prefix}dlv:`;
    const received = Date.now() - 60_000;
    const stored = (id: string, state: string, extra: Record<string, string | number> = {}) =>
      redis.hset(`${P}${id}`, {
        event_type: 'LoyaltyRuleChanged',
        tenant_id: 'merchant-1',
        raw_body: `{"eventId":"${id}"}`,
        correlation_id: `c-${id}`,
        sig_ts: 1_764_000_000,
        secret_index: 0,
        received_at: received,
        state,
        attempts: 0,
        next_at: received,
        ...extra,
      });
    await stored('pending-1', 'pending');
    await redis.zadd(`${P}due`, received, 'pending-1');
    await redis.zadd(`${P}s:pending`, received, 'pending-1');
    await stored('dead-1', 'dead', { attempts: 5, last_error: 'boom', settled_at: received });
    await redis.zadd(`${P}s:dead`, received, 'dead-1');
    await redis.set(`${prefix}inbox:done-1`, 'done', 'PX', 3_600_000);

    expect(await migrateRedisInbox(redis, { prefix })).toBe(3);
    expect(await redis.keys(`${prefix}dlv:*`)).toEqual([]);
    expect(await redis.keys(`${prefix}inbox:*`)).toEqual([]);

    const inbox = redisInbox(redis, { prefix });
    expect(await inbox.stats()).toEqual({ pending: 1, handled: 0, dead: 1, parked: 0 });
    const [claim] = await inbox.claimDue('w', 10);
    expect(claim).toMatchObject({ eventId: 'pending-1', rawBody: '{"eventId":"pending-1"}', attempt: 1 });
    expect(await inbox.list({ state: 'dead' })).toMatchObject([
      { eventId: 'dead-1', attempts: 5, lastError: 'boom' },
    ]);
    const key = { eventId: 'done-1', eventType: 'LoyaltyRuleChanged', tenantId: '' };
    expect(await inbox.begin(key)).toBe('done');
    expect(await redis.pttl(`${prefix}{inbox}:e:done-1`)).toBeGreaterThan(3_500_000);
    expect(await migrateRedisInbox(redis, { prefix })).toBe(0);
  });
});
