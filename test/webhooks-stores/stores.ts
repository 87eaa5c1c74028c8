import { Cluster, Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { createClient, createCluster } from 'redis';
import { startPgBouncer, startRedisCluster } from '../support/real-servers.js';
import { postgresUrl, redisUrl, uniqueName } from '../support/servers.js';
import type { MakeInbox } from './inbox-conformance.js';

/**
 * Every inbox store the conformance suites run against: one line each. `setUp` runs once before
 * the suite (connects, migrates a schema of its own) and returns how to build a store and how to
 * close what it opened. Stores whose server is not running are left out.
 */
export interface StoreUnderTest {
  readonly name: string;
  setUp(): Promise<{ make: MakeInbox; close(): Promise<void> }>;
}

const pgUrl = postgresUrl();
const standaloneRedis = redisUrl();

/**
 * Where a Postgres store runs: straight to the server; through PgBouncer in transaction mode
 * (Supabase's, Neon's and Heroku's default: nothing may outlive a transaction); or on a database
 * whose default isolation is SERIALIZABLE (the SDK's own transactions must not depend on it).
 */
type Topology = 'direct' | 'pgbouncer' | 'serializable';

/** The URL of a topology, and how to take it down after the suite. */
async function topologyUrl(topology: Topology): Promise<{ url: string; stop(): Promise<void> }> {
  if (topology === 'direct') return { url: pgUrl!, stop: async () => {} };
  if (topology === 'pgbouncer') {
    const bouncer = await startPgBouncer(pgUrl!, { mode: 'transaction' });
    return { url: bouncer.url, stop: () => bouncer.stop() };
  }
  const database = uniqueName('serializable');
  const admin = new pg.Client({ connectionString: pgUrl! });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.query(`ALTER DATABASE ${database} SET default_transaction_isolation = 'serializable'`);
  await admin.end();
  const url = new URL(pgUrl!);
  url.pathname = `/${database}`;
  return { url: url.toString(), stop: async () => {} };
}

/** A pg Pool or a postgres.js sql on a fresh schema, migrated through the same connection. */
async function onPostgres(
  driver: 'pg' | 'postgres.js',
  transactional: boolean,
  topology: Topology = 'direct',
) {
  const schema = uniqueName('inbox');
  const target = await topologyUrl(topology);
  const db =
    driver === 'pg'
      ? new pg.Pool({ connectionString: target.url, max: 20 })
      : postgres(target.url, {
          max: 20,
          onnotice: () => undefined,
          // Behind a transaction pooler postgres.js must not prepare (docs/operating-in-production.md).
          ...(topology === 'pgbouncer' && { prepare: false }),
        });
  await migrate(db, { schema });
  const make: MakeInbox = ({ leaseMs }) =>
    transactional
      ? postgresInbox(db, { schema, leaseMs, transactional: true, lockTimeoutMs: 300 })
      : postgresInbox(db, { schema, leaseMs });
  const close = async () => {
    await (driver === 'pg' ? (db as pg.Pool).end() : (db as postgres.Sql).end({ timeout: 1 }));
    await target.stop();
  };
  return { make, close };
}

/** A Redis client on the run's standalone server, or on a three-master Cluster of its own. */
async function onRedis(client: 'ioredis' | 'node-redis' | 'ioredis Cluster' | 'node-redis Cluster') {
  const prefix = `${uniqueName('inbox')}:`;
  const cluster = client.endsWith('Cluster') ? await startRedisCluster() : undefined;
  const stopCluster = async () => void (await cluster?.stop());
  if (client === 'ioredis' || client === 'ioredis Cluster') {
    const redis = cluster ? new Cluster([...cluster.nodes]) : new Redis(standaloneRedis!);
    const make: MakeInbox = ({ leaseMs }) => redisInbox(redis, { prefix, leaseMs });
    const close = async () => {
      redis.disconnect();
      await stopCluster();
    };
    return { make, close };
  }
  const redis = cluster
    ? await createCluster({ rootNodes: cluster.urls.map((url) => ({ url })) }).connect()
    : await createClient({ url: standaloneRedis! }).connect();
  const make: MakeInbox = ({ leaseMs }) => redisInbox(redis, { prefix, leaseMs });
  const close = async () => {
    await redis.close();
    await stopCluster();
  };
  return { make, close };
}

export const STORES: readonly StoreUnderTest[] = [
  {
    name: 'memoryInbox',
    setUp: async () => ({ make: ({ leaseMs }) => memoryInbox({ leaseMs }), close: async () => {} }),
  },
  ...(pgUrl
    ? [
        { name: 'postgresInbox on pg', setUp: () => onPostgres('pg', false) },
        { name: 'postgresInbox on pg, transactional', setUp: () => onPostgres('pg', true) },
        { name: 'postgresInbox on postgres.js', setUp: () => onPostgres('postgres.js', false) },
        { name: 'postgresInbox on postgres.js, transactional', setUp: () => onPostgres('postgres.js', true) },
        {
          name: 'postgresInbox on pg through PgBouncer (transaction mode)',
          setUp: () => onPostgres('pg', false, 'pgbouncer'),
        },
        {
          name: 'postgresInbox on pg through PgBouncer (transaction mode), transactional',
          setUp: () => onPostgres('pg', true, 'pgbouncer'),
        },
        {
          name: 'postgresInbox on postgres.js through PgBouncer (transaction mode), transactional',
          setUp: () => onPostgres('postgres.js', true, 'pgbouncer'),
        },
        {
          name: 'postgresInbox on pg, database default SERIALIZABLE, transactional',
          setUp: () => onPostgres('pg', true, 'serializable'),
        },
        {
          name: 'postgresInbox on postgres.js, database default SERIALIZABLE',
          setUp: () => onPostgres('postgres.js', false, 'serializable'),
        },
      ]
    : []),
  ...(standaloneRedis
    ? [
        { name: 'redisInbox on ioredis', setUp: () => onRedis('ioredis') },
        { name: 'redisInbox on node-redis', setUp: () => onRedis('node-redis') },
        { name: 'redisInbox on an ioredis Cluster', setUp: () => onRedis('ioredis Cluster') },
        { name: 'redisInbox on a node-redis Cluster', setUp: () => onRedis('node-redis Cluster') },
      ]
    : []),
];
