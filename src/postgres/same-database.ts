import type { SqlRunner } from './database.js';
import { codeOf } from './errors.js';
import { OutboxTransactionError } from './outbox-errors.js';

// The database and the cluster it lives in: two databases migrated alike differ here, even with
// the same name on two servers. `pg_control_system()` is asked only where the role may call it.
const IDENTITY = `current_database() || '/' || coalesce(CASE WHEN has_function_privilege('pg_control_system()', 'execute') THEN (SELECT system_identifier::text FROM pg_control_system()) END, '')`;

// Sent in the caller's transaction just before the INSERT, in the same round trip: on another
// database it fails (an unknown setting, 42704), which also makes the INSERT behind it fail, so
// nothing is written there.
const REFUSAL = 'loyalty_outbox.enqueue_on_another_database';
const ASSERT = `SELECT CASE WHEN ${IDENTITY} = $1 THEN 1 ELSE current_setting('${REFUSAL}')::int END AS same`;

/**
 * Keeps `enqueue({ tx })` on the store's own database: an event enqueued with a transaction on
 * another one (migrated too: a test database, the wrong `DATABASE_URL`) would commit where no
 * drainer of this store ever looks. The store learns its database when the outbox starts; each
 * `pg` client the caller passes is checked at its first enqueue, then trusted.
 */
export function sameDatabase() {
  let own: string | undefined;
  const checked = new WeakSet<object>();
  return {
    /** Learns the store's own database (at `outbox.start()`); unknown, nothing is checked. */
    async learn(database: SqlRunner): Promise<void> {
      const { rows } = await database.query<{ id: string }>(`SELECT ${IDENTITY} AS id`);
      own = rows[0]?.id;
    },
    /**
     * The statement to send before the INSERT on `tx` (with a parameter, and `inline`: the same
     * as text to append to a simple-protocol probe), or undefined when none is needed.
     */
    check(tx: object): { text: string; values: string[]; inline: string } | undefined {
      if (own === undefined || checked.has(tx)) return undefined;
      const literal = `'${own.replaceAll("'", "''")}'`;
      return { text: ASSERT, values: [own], inline: ASSERT.replace('$1', literal) };
    },
    passed(tx: object): void {
      checked.add(tx);
    },
  };
}

/** The check's own failure, as the caller should read it; any other error as it is. */
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
