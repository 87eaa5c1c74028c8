import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import type { DeferredInboxStore } from 'loyalty-partner-sdk/webhooks';
import { expect, it } from 'vitest';
import {
  DELIVERIES,
  deliverThreeTimesAtOnce,
  PROCESSES,
  startChild,
  stopChild,
  useReceiverBundle,
} from '../postgres/support/receiver-processes.js';
import { describeWithPostgres, redisUrl, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET } from './support/deliveries.js';

/*
 * Must show 1 of issue 31: four deferred receiver processes share one inbox; 300 deliveries,
 * each posted 3 times at once to three processes; 30% of handlers fail on their first run, the
 * others take up to 250 ms. On Postgres one process is SIGKILLed mid-way and started again.
 * Every delivery's effect is committed exactly once, and every failed one was retried.
 */

const CHILD = fileURLToPath(new URL('./fixtures/deferred-child.mjs', import.meta.url));

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 100));
}

describeWithPostgres('four deferred receiver processes sharing one inbox', (postgresUrl) => {
  const { pool, bundle } = useReceiverBundle(postgresUrl, 5);

  const run = async (
    config: object,
    inbox: DeferredInboxStore<unknown>,
    effects: () => Promise<string[]>,
    failed: () => Promise<string[]>,
    kill: boolean,
  ) => {
    const events = Array.from({ length: DELIVERIES }, () => outboundEvent('LoyaltyRuleChanged'));
    const failFirst = events.filter((_, i) => i % 10 < 3).map((event) => event.eventId);
    const childConfig = { ...config, failFirst, handlerMaxMs: 250, leaseMs: 2_000, secret: SECRET };
    const children = await Promise.all(
      Array.from({ length: PROCESSES }, () => startChild(CHILD, bundle(), childConfig)),
    );
    try {
      const restart = () => startChild(CHILD, bundle(), childConfig);
      const { killed } = await deliverThreeTimesAtOnce(children, events, kill ? { restart } : {});
      if (kill) expect(killed).toBe(true);

      await until(async () => (await inbox.stats()).handled === DELIVERIES);
      expect(await inbox.stats()).toEqual({ pending: 0, handled: DELIVERIES, dead: 0, parked: 0 });
      const done = await effects();
      expect(done).toHaveLength(DELIVERIES);
      expect(new Set(done)).toEqual(new Set(events.map((event) => event.eventId)));
      expect(new Set(await failed())).toEqual(new Set(failFirst));
    } finally {
      await Promise.all(children.map(stopChild));
    }
  };

  it('on Postgres (transactional, one process killed mid-way): every effect committed exactly once, every failed one retried', async () => {
    const schema = uniqueName('deferred');
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE ${schema}.effects (event_id text NOT NULL, pid int NOT NULL)`);
    await pool.query(`CREATE TABLE ${schema}.failures (event_id text PRIMARY KEY)`);
    const ids = async (table: string) =>
      (await pool.query(`SELECT event_id FROM ${schema}.${table}`)).rows.map((row) => row.event_id as string);
    await run(
      { store: 'postgres', postgresUrl, schema },
      postgresInbox(pool, { schema }),
      () => ids('effects'),
      () => ids('failures'),
      true,
    );
  }, 240_000);

  it.skipIf(!redisUrl())(
    'on Redis: every effect recorded exactly once, every failed one retried',
    async () => {
      const prefix = `${uniqueName('deferred')}:`;
      const redis = new Redis(redisUrl()!);
      try {
        const failures = async () =>
          (await redis.keys(`${prefix}failed:*`)).map((key) => key.slice(`${prefix}failed:`.length));
        await run(
          { store: 'redis', redisUrl: redisUrl(), prefix },
          redisInbox(redis, { prefix }),
          () => redis.lrange(`${prefix}effects`, 0, -1),
          failures,
          false,
        );
      } finally {
        redis.disconnect();
      }
    },
    240_000,
  );
});
