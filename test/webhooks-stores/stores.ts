import { Cluster, Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { createClient, createCluster } from 'redis';
import { startRedisCluster } from '../support/real-servers.js';
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

/** A pg Pool or a postgres.js sql on a fresh schema. */
async function onPostgres(driver: 'pg' | 'postgres.js', transactional: boolean) {
  const schema = uniqueName('inbox');
  const db =
    driver === 'pg'
      ? new pg.Pool({ connectionString: pgUrl!, max: 20 })
      : postgres(pgUrl!, { max: 20, onnotice: () => undefined });
  await migrate(db, { schema });
  const make: MakeInbox = ({ leaseMs }) =>
    transactional
      ? postgresInbox(db, { schema, leaseMs, transactional: true, lockTimeoutMs: 300 })
      : postgresInbox(db, { schema, leaseMs });
  const close = async () =>
    void (await ('end' in db && driver === 'pg'
      ? (db as pg.Pool).end()
      : (db as postgres.Sql).end({ timeout: 1 })));
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
