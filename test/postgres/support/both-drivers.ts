import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll } from 'vitest';
import { uniqueName } from '../../support/servers.js';

/**
 * For a describe block that runs a store on both drivers: a pg Pool and a postgres.js sql of 30
 * connections each, and a fresh schema migrated (through `migrateWith`) before the block's tests.
 */
export function bothDrivers(url: string, prefix: string, migrateWith: 'pg' | 'postgres.js' = 'pg') {
  const schema = uniqueName(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 30 });
  const sql = postgres(url, { max: 30, onnotice: () => undefined });
  beforeAll(() => migrate(migrateWith === 'pg' ? pool : sql, { schema }));
  afterAll(async () => {
    await Promise.all([pool.end(), sql.end({ timeout: 1 })]);
  });
  return { schema, pool, sql };
}
