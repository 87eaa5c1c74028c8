import { migrate, postgresRuleStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { ruleStoreConformance } from '../webhooks-stores/rule-store-conformance.js';

describeWithPostgres('postgresRuleStore', (url) => {
  const schema = uniqueName('rules');
  const pool = new pg.Pool({ connectionString: url, max: 30 });
  const sql = postgres(url, { max: 30, onnotice: () => undefined });
  beforeAll(() => migrate(sql, { schema }));
  afterAll(async () => {
    await Promise.all([pool.end(), sql.end({ timeout: 1 })]);
  });
  describe('on pg', () => ruleStoreConformance(() => postgresRuleStore(pool, { schema })));
  describe('on postgres.js', () => ruleStoreConformance(() => postgresRuleStore(sql, { schema })));
});
