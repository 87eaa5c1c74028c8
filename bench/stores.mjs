/**
 * The receiver inbox on real servers: what one delivery's claim + complete costs on loopback
 * PostgreSQL (claims as rows: `begin` then `complete`; transactional: one `transaction` with
 * empty work) and Redis, beside `memoryInbox`. Each delivery is timed alone (one at a time, new
 * event ids), so the figures are latencies: median and p99 in microseconds. The servers are
 * started for the run in a temporary directory (test/support/real-servers.ts), as `npm test`
 * does; both are tuned as test servers (no fsync), so Postgres commits cost no disk flush.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { createClient } from 'redis';
import { median } from './harness.mjs';
import { realServers } from './real-servers.mjs';

/** Settings of this comparison, declared once. */
const SETTINGS = {
  /** Deliveries timed per store (after `warmup` untimed ones). */
  deliveries: 3_000,
  warmup: 300,
};

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function latencies(claimAndComplete) {
  const key = () => ({ eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: 'merchant-1' });
  for (let i = 0; i < SETTINGS.warmup; i++) await claimAndComplete(key());
  const micros = [];
  for (let i = 0; i < SETTINGS.deliveries; i++) {
    const k = key();
    const started = process.hrtime.bigint();
    await claimAndComplete(k);
    micros.push(Number(process.hrtime.bigint() - started) / 1e3);
  }
  const sorted = micros.sort((a, b) => a - b);
  return { median: median(sorted), p99: percentile(sorted, 0.99) };
}

const rows = (inbox) => async (key) => {
  if ((await inbox.begin(key)) !== 'new') throw new Error('a fresh event id was not new');
  await inbox.complete(key);
};
const transactional = (inbox) => async (key) => {
  if ((await inbox.transaction(key, async () => undefined)) !== 'new') throw new Error('not new');
};

export async function run() {
  const { startPostgres, startRedis, cleanUp } = await realServers();
  const [pgServer, redisServer] = await Promise.all([startPostgres(), startRedis()]);
  const pool = new pg.Pool({ connectionString: pgServer.url, max: 2 });
  const sql = postgres(pgServer.url, { max: 2, onnotice: () => undefined });
  const ioredis = new Redis(redisServer.url);
  const nodeRedis = await createClient({ url: redisServer.url }).connect();
  try {
    await migrate(pool, { schema: 'bench' });
    const contenders = [
      ['memoryInbox', rows(memoryInbox())],
      ['postgresInbox on pg, claims as rows', rows(postgresInbox(pool, { schema: 'bench' }))],
      [
        'postgresInbox on pg, transactional',
        transactional(postgresInbox(pool, { schema: 'bench', transactional: true })),
      ],
      ['postgresInbox on postgres.js, claims as rows', rows(postgresInbox(sql, { schema: 'bench' }))],
      [
        'postgresInbox on postgres.js, transactional',
        transactional(postgresInbox(sql, { schema: 'bench', transactional: true })),
      ],
      ['redisInbox on ioredis', rows(redisInbox(ioredis, { prefix: 'bench:' }))],
      ['redisInbox on node-redis', rows(redisInbox(nodeRedis, { prefix: 'bench:' }))],
    ];
    const measured = [];
    for (const [name, claimAndComplete] of contenders) {
      measured.push({ name, ...(await latencies(claimAndComplete)) });
    }
    return {
      sections: [
        {
          title: `inbox claim + complete per delivery, median of ${SETTINGS.deliveries.toLocaleString('en-US')}`,
          unit: 'µs',
          rows: measured.map(({ name, median: value }) => ({ name, value })),
        },
        {
          title: 'inbox claim + complete per delivery, p99',
          unit: 'µs',
          rows: measured.map(({ name, p99 }) => ({ name, value: p99 })),
        },
      ],
      goals: [],
    };
  } finally {
    await Promise.allSettled([pool.end(), sql.end(), nodeRedis.quit()]);
    ioredis.disconnect();
    await Promise.allSettled([pgServer.stop(), redisServer.stop()]);
    await cleanUp();
  }
}
