import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { postgresUrl, uniqueName } from '../support/servers.js';
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
  // redisInbox on ioredis and on node-redis: helper H2 adds its entries here (one line each).
];
