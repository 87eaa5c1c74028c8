import { mergeDefaults } from '../contract/merge-defaults.js';
import type { LoyaltyRule, RuleApplyResult, RuleKey, RuleVersionStore } from '../webhooks/rule-store.js';
import { type PostgresDb, prepareStatements, toStoreDatabase } from './database.js';
import { rethrowAs } from './errors.js';
import { quoteSchema } from './schema/identifier.js';

/** Options of {@link postgresRuleStore}. */
export interface PostgresRuleStoreOptions {
  /**
   * The schema `migrate` created the tables in.
   * @default 'loyalty'
   */
  schema?: string;
}

/**
 * The rule cache's store in Postgres: the current rule of every key, shared by every process.
 * `putIfNewer` is one statement that locks the key's row, so two versions applied at once
 * can never let the older one win. Run {@link migrate} first.
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT` or `INVALID_SCHEMA` at once; database errors as
 * `UNREACHABLE`, `CONNECTION_LOST`, `NOT_MIGRATED` or `QUERY_FAILED`
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createRuleCache } from 'loyalty-partner-sdk/webhooks';
 * import { postgresRuleStore } from 'loyalty-partner-sdk/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * export const rules = createRuleCache({ store: postgresRuleStore(pool, { schema: 'loyalty' }) });
 * ```
 */
export function postgresRuleStore(db: PostgresDb, options: PostgresRuleStoreOptions = {}): RuleVersionStore {
  const { schema } = mergeDefaults<PostgresRuleStoreOptions>({ schema: 'loyalty' }, options);
  const s = quoteSchema(schema, 'postgresRuleStore');
  const database = toStoreDatabase(db, 'postgresRuleStore');
  const where = 'tenant_id = $1 AND external_store_id = $2 AND rule_type = $3 AND stamp_card_id = $4';
  const get = `SELECT rule::text AS rule FROM ${s}.rules WHERE ${where}`;
  // `previous` locks an existing row first (READ COMMITTED re-reads the latest version after
  // waiting), so previousVersion is the version this write replaced or lost to.
  const put = `WITH previous AS (
  SELECT rule_version FROM ${s}.rules WHERE ${where} FOR UPDATE
), written AS (
  INSERT INTO ${s}.rules AS r (tenant_id, external_store_id, rule_type, stamp_card_id, rule_version, rule)
  VALUES ($1, $2, $3, $4, $5, $6::text::jsonb)
  ON CONFLICT (tenant_id, external_store_id, rule_type, stamp_card_id) DO UPDATE
    SET rule_version = excluded.rule_version, rule = excluded.rule, updated_at = now()
    WHERE r.rule_version < excluded.rule_version
  RETURNING 1
)
SELECT (SELECT rule_version::text FROM previous) AS previous, EXISTS (SELECT 1 FROM written) AS applied`;
  prepareStatements([get, put]);
  const params = (key: RuleKey) => [key.tenantId, key.externalStoreId, key.ruleType, key.stampCardId ?? ''];
  const run = <Row>(what: string, text: string, values: readonly unknown[]) =>
    database.query<Row>(text, values).catch(rethrowAs(`postgresRuleStore ${what}`, schema));

  return {
    async get(key): Promise<LoyaltyRule | undefined> {
      const { rows } = await run<{ rule: string }>('get', get, params(key));
      return rows[0] ? (JSON.parse(rows[0].rule) as LoyaltyRule) : undefined;
    },
    async putIfNewer(key, rule): Promise<RuleApplyResult> {
      const values = [...params(key), rule.ruleVersion, JSON.stringify(rule)];
      const { rows } = await run<{ previous: string | null; applied: boolean }>('putIfNewer', put, values);
      const previous = rows[0]?.previous;
      return {
        applied: rows[0]?.applied === true,
        previousVersion: previous === null || previous === undefined ? undefined : Number(previous),
      };
    },
  };
}
