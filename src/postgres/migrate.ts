import { mergeDefaults } from '../contract/merge-defaults.js';
import { type Database, type PostgresDb, type SqlRunner, toDatabase } from './database.js';
import { isConflict, PostgresStoreError, toStoreError } from './errors.js';
import { createdTables } from './schema/created-tables.js';
import { quoteSchema } from './schema/identifier.js';
import { LATEST_SCHEMA_VERSION, preambleStatements, recordStatement } from './schema/render.js';
import { SCHEMA_STEPS } from './schema/steps.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /**
   * The Postgres schema holding the SDK's tables (created when missing). A plain identifier.
   * @default 'loyalty'
   */
  schema?: string;
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** The schema version after the call. */
  version: number;
  /** The versions this call applied (empty when the schema was already current). */
  applied: number[];
}

/**
 * Creates or upgrades the SDK's tables (receiver inbox, rule store, outbox) in `schema`, in one
 * transaction under an advisory lock: idempotent, and safe when many processes call it at start-up.
 * Teams that run their own migrations apply the shipped `loyalty-partner-sdk/postgres/schema.sql`.
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT`, `INVALID_SCHEMA`, `UNREACHABLE`, `QUERY_FAILED`
 * (for example a database user without CREATE rights)
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { migrate } from 'loyalty-partner-sdk/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool, { schema: 'loyalty' });
 * ```
 */
export async function migrate(db: PostgresDb, options: MigrateOptions = {}): Promise<MigrateResult> {
  const { schema } = mergeDefaults<MigrateOptions>({ schema: 'loyalty' }, options);
  const s = quoteSchema(schema, 'migrate');
  const database = toDatabase(db, 'migrate');
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(database, schema, s);
    } catch (err) {
      // READ COMMITTED makes a serialization failure unlikely; a deadlock with another
      // process's DDL is not: the whole transaction rolled back, and runs again.
      if (attempt < MIGRATE_ATTEMPTS && isConflict(err)) continue;
      throw toStoreError(err, 'migrate', schema);
    }
  }
}

/** Runs of the migration transaction that meet another transaction (40001, 40P01) before it fails. */
const MIGRATE_ATTEMPTS = 5;

async function migrateOnce(database: Database, schema: string, s: string): Promise<MigrateResult> {
  // READ COMMITTED (the database's default may be stricter): each statement sees what the
  // process that held the lock before committed, never a snapshot taken before the wait.
  return await database.transaction(async (tx) => {
    // The role's `lock_timeout` would end the wait for another process's migration (55P03); SET
    // LOCAL: no session setting outlives this transaction, behind a pooler too.
    await tx.query('SET LOCAL lock_timeout = 0');
    // Serialises concurrent migrations of this schema; released at COMMIT or ROLLBACK.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`loyalty-partner-sdk:migrate:${schema}`]);
    for (const statement of preambleStatements(s)) await tx.query(statement);
    const { rows } = await tx.query<{ version: number | null }>(
      `SELECT max(version)::int AS version FROM ${s}.schema_version`,
    );
    const current = rows[0]?.version ?? 0;
    if (current > LATEST_SCHEMA_VERSION) {
      throw new PostgresStoreError(
        'QUERY_FAILED',
        `migrate: schema "${schema}" is at version ${current}, newer than this package knows (${LATEST_SCHEMA_VERSION}): upgrade loyalty-partner-sdk`,
      );
    }
    const applied: number[] = [];
    for (const step of SCHEMA_STEPS) {
      if (step.version <= current) continue;
      const statements = step.statements(s);
      await refuseForeignTables(tx, schema, statements);
      for (const statement of statements) await tx.query(statement);
      await tx.query(recordStatement(s, step));
      applied.push(step.version);
    }
    return { version: Math.max(current, LATEST_SCHEMA_VERSION), applied };
  });
}

/** A table of a step's name that someone else made would pass `IF NOT EXISTS`: it needs every column. */
async function refuseForeignTables(
  tx: SqlRunner,
  schema: string,
  statements: readonly string[],
): Promise<void> {
  for (const { table, columns } of createdTables(statements)) {
    const { rows } = await tx.query<{ column_name: string }>(
      'SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
      [schema, table],
    );
    if (rows.length === 0) continue;
    const present = new Set(rows.map((row) => row.column_name));
    const missing = columns.filter((column) => !present.has(column));
    if (missing.length > 0) {
      throw new PostgresStoreError(
        'INCOMPATIBLE_SCHEMA',
        `migrate: schema "${schema}" already holds a table "${table}" that migrate did not create ` +
          `(it lacks ${missing.join(', ')}): give the SDK a schema of its own, or rename that table`,
      );
    }
  }
}
