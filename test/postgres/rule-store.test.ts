import { postgresRuleStore } from 'loyalty-partner-sdk/postgres';
import { describe } from 'vitest';
import { describeWithPostgres } from '../support/servers.js';
import { ruleStoreConformance } from '../webhooks-stores/rule-store-conformance.js';
import { bothDrivers } from './support/both-drivers.js';

describeWithPostgres('postgresRuleStore', (url) => {
  const { schema, pool, sql } = bothDrivers(url, 'rules', 'postgres.js');
  describe('on pg', () => ruleStoreConformance(() => postgresRuleStore(pool, { schema })));
  describe('on postgres.js', () => ruleStoreConformance(() => postgresRuleStore(sql, { schema })));
});
