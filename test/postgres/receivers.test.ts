import { migrate } from 'loyalty-partner-sdk/postgres';
import { describe, expect, it } from 'vitest';
import { describeWithPostgres, redisUrl, uniqueName } from '../support/servers.js';
import {
  outboundEvent,
  SECRET,
  type SignedDelivery,
  signedDelivery,
} from '../webhooks/support/deliveries.js';
import {
  type ReceiverConfig,
  type ReceiverProcess,
  startReceiver,
  useReceiverBundle,
} from './support/receiver-processes.js';

/*
 * Must show 1, 2 and 5 of issue 13: four receiver processes on loopback share one inbox; 1,000
 * deliveries, each posted 3 times at once to three different processes. Every handler effect row
 * exists exactly once, every answer is 200 or 503 EVENT_IN_PROGRESS, and redelivering the 503s
 * gives 200. Each run mixes the client libraries: processes 1 and 3 use pg (ioredis), 2 and 4
 * postgres.js (node-redis), so every event is claimed through both.
 */

const PROCESSES = 4;
const DELIVERIES = 1_000;
const COPIES = 3;
const AT_ONCE = 40; // deliveries in flight (x3 requests)

type Mode = Pick<ReceiverConfig, 'store' | 'driver' | 'transactional'>;
const SCENARIOS: Record<string, Mode[]> = {
  'postgresInbox({ transactional: true }) on pg and postgres.js': [
    { store: 'postgres', driver: 'pg', transactional: true },
    { store: 'postgres', driver: 'postgres.js', transactional: true },
  ],
  'postgresInbox() on pg and postgres.js': [
    { store: 'postgres', driver: 'pg', transactional: false },
    { store: 'postgres', driver: 'postgres.js', transactional: false },
  ],
};
const REDIS_SCENARIOS: Record<string, Mode[]> = {
  'redisInbox on ioredis and node-redis': [
    { store: 'redis', driver: 'ioredis' },
    { store: 'redis', driver: 'node-redis' },
  ],
};

describeWithPostgres('four receiver processes sharing one inbox', (postgresUrl) => {
  const { pool, bundle } = useReceiverBundle(postgresUrl, 5);

  const post = async (url: string, delivery: SignedDelivery) => {
    const response = await fetch(url, { method: 'POST', headers: delivery.headers, body: delivery.rawBody });
    const text = await response.text();
    return {
      status: response.status,
      code: text ? (JSON.parse(text).code as string | undefined) : undefined,
    };
  };

  const runScenario = async (modes: Mode[]) => {
    const schema = uniqueName('receivers');
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE ${schema}.effects (event_id text NOT NULL, pid int NOT NULL)`);
    const config = (i: number): ReceiverConfig => ({
      ...modes[i % modes.length]!,
      postgresUrl,
      redisUrl: redisUrl() ?? undefined,
      schema,
      prefix: `${schema}:`,
      secret: SECRET,
      handlerDelayMs: 5,
    });
    const receivers: ReceiverProcess[] = await Promise.all(
      Array.from({ length: PROCESSES }, (_, i) => startReceiver(bundle(), config(i))),
    );
    try {
      const events = Array.from({ length: DELIVERIES }, () => outboundEvent('LoyaltyRuleChanged'));
      const deliveries = events.map((event) => signedDelivery(event));
      const answers: Array<{ status: number; code: string | undefined; index: number }> = [];
      let next = 0;
      const lane = async () => {
        for (let i = next++; i < DELIVERIES; i = next++) {
          const copies = Array.from({ length: COPIES }, (_, c) => receivers[(i + c) % PROCESSES]!.url);
          const got = await Promise.all(copies.map((url) => post(url, deliveries[i]!)));
          answers.push(...got.map((answer) => ({ ...answer, index: i })));
        }
      };
      await Promise.all(Array.from({ length: AT_ONCE }, lane));

      expect(answers).toHaveLength(DELIVERIES * COPIES);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(refused.every((answer) => answer.status === 503 && answer.code === 'EVENT_IN_PROGRESS')).toBe(
        true,
      );
      // Every delivery got at least one 200 or is redelivered now, as the service would.
      const again = [...new Set(refused.map((answer) => answer.index))];
      const redelivered = await Promise.all(
        again.map((i) => post(receivers[i % PROCESSES]!.url, deliveries[i]!)),
      );
      expect(redelivered.every((answer) => answer.status === 200)).toBe(true);

      const { rows } = await pool.query(
        `SELECT count(*)::int AS runs, count(DISTINCT event_id)::int AS events, max(n)::int AS most
         FROM (SELECT event_id, count(*) OVER (PARTITION BY event_id) AS n FROM ${schema}.effects) e`,
      );
      expect(rows[0]).toEqual({ runs: DELIVERIES, events: DELIVERIES, most: 1 });
      const ids = await pool.query(`SELECT event_id FROM ${schema}.effects`);
      expect(new Set(ids.rows.map((row) => row.event_id))).toEqual(
        new Set(events.map((event) => event.eventId)),
      );
      // Every process (so both client libraries) ran handlers.
      const pids = await pool.query(`SELECT DISTINCT pid FROM ${schema}.effects`);
      expect(pids.rows).toHaveLength(PROCESSES);
      for (const receiver of receivers) expect(receiver.stderr()).toBe('');
    } finally {
      await Promise.all(receivers.map((receiver) => receiver.stop()));
    }
  };

  for (const [name, modes] of Object.entries(SCENARIOS)) {
    it(`${name}: every handler effect exactly once`, () => runScenario(modes), 180_000);
  }
  describe.skipIf(!redisUrl())(
    `with Redis${redisUrl() ? '' : ' (no Redis: apt-get install -y redis-server)'}`,
    () => {
      for (const [name, modes] of Object.entries(REDIS_SCENARIOS)) {
        it(`${name}: every handler effect exactly once`, () => runScenario(modes), 180_000);
      }
    },
  );
});
