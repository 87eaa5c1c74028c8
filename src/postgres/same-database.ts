import { codeOf } from '../internal/code-of.js';
import type { SqlRunner } from './database.js';
import { OutboxTransactionError } from './errors.js';

// The cluster a database lives in: two databases migrated alike may have the same name on two
// servers. NULL where the role may not call `pg_control_system()` (every role may by default).
const SYSTEM_ID = `CASE WHEN has_function_privilege('pg_control_system()', 'execute') THEN (pg_control_system()).system_identifier::text END`;

// Reading a setting that does not exist fails (42704), and with it the statement and the
// transaction: how the guard refuses, in the statement the driver already sends.
const REFUSAL = 'loyalty_outbox.enqueue_on_another_database';
// Set on a session known to be on the store's database, which it never leaves: checked once per
// connection, whatever is in front of it; a transaction rolled back takes the mark with it.
const CHECKED = 'loyalty_outbox.checked_database';

/**
 * The guard of every enqueue with a caller's `tx`, in the enqueue's checks (step 8): `p_database`
 * the store's database (NULL: no check), `p_system_id` its cluster's id ('' when unknown, compared
 * only where both sides can read it). A session already checked costs one setting read.
 */
export const SAME_DATABASE_GUARD = `IF p_database IS NOT NULL
    AND current_setting('${CHECKED}', true) IS DISTINCT FROM p_system_id || '/' || p_database THEN
    IF current_database() = p_database AND (p_system_id = '' OR coalesce(${SYSTEM_ID}, p_system_id) = p_system_id) THEN
      PERFORM set_config('${CHECKED}', p_system_id || '/' || p_database, false);
    ELSE
      PERFORM current_setting('${REFUSAL}');
    END IF;
  END IF;`;

/**
 * Keeps `enqueue({ tx })` on the store's own database (not a test database, the wrong
 * `DATABASE_URL`): learnt at start, compared by the enqueue's own statement, no statement added.
 */
export function sameDatabase() {
  let own: [name: string, systemId: string] | [null, null] = [null, null];
  return {
    /** Learns the store's own database (at `outbox.start()`); unknown, nothing is checked. */
    async learn(database: SqlRunner): Promise<void> {
      const { rows } = await database.query<{ name: string; system_id: string }>(
        `SELECT current_database() AS name, coalesce(${SYSTEM_ID}, '') AS system_id`,
      );
      const [row] = rows;
      if (row) own = [row.name, row.system_id];
    },
    /** $12 and $13 of the guarded enqueue. */
    params: (): readonly unknown[] => own,
  };
}

/** The guard's refusal, as the caller should read it; any other error as it is. */
export function otherDatabaseError(err: unknown, schema: string): unknown {
  const message = err instanceof Error ? err.message : '';
  if (codeOf(err) !== '42704' || !message.includes(REFUSAL)) return err;
  return new OutboxTransactionError(
    'OTHER_DATABASE',
    `enqueue: tx is a transaction on another database than this store's (schema "${schema}"): the event would ` +
      'commit where this outbox never sends it, so your transaction was made to fail; roll it back and ' +
      'enqueue with a client of the database the store was given',
    { cause: err },
  );
}
