import { codeOf } from '../internal/code-of.js';
import { settledStatus } from './client-turn.js';
import { knownDirect, learnPgConnection } from './connection-kind.js';
import { OutboxTransactionError, PostgresStoreError, toStoreError } from './errors.js';
import type { OutboxSql } from './outbox-sql.js';
import { otherDatabaseError } from './same-database.js';

/**
 * What `outbox.enqueue(type, payload, { tx })` accepts with `postgresStore`: the `pg` Client or
 * PoolClient that ran `BEGIN`, the postgres.js `sql` inside `sql.begin(...)`, or any object
 * whose `query(text, values)` runs on the transaction's connection (an adapter for Prisma or
 * Kysely, see the README).
 *
 * @example
 * ```ts
 * import type pg from 'pg';
 * import type { PostgresOutboxTx } from 'loyalty-partner-sdk/postgres';
 * const fromPg = (client: pg.PoolClient): PostgresOutboxTx => client;
 * ```
 */
export type PostgresOutboxTx =
  | { query(text: string, values?: unknown[]): Promise<unknown> }
  | { unsafe(text: string, values?: unknown[], options?: { prepare?: boolean }): PromiseLike<unknown> };

type Fn = (...args: never[]) => unknown;
// A postgres.js \`sql\` is a function with properties.
const has = (value: unknown, key: string): boolean =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as Record<string, unknown>)[key] === 'function';
const isPool = (value: unknown): boolean =>
  has(value, 'connect') && typeof (value as { totalCount?: unknown }).totalCount === 'number';
const call = (target: unknown, key: string, ...args: unknown[]): Promise<unknown> =>
  Promise.resolve((target as Record<string, Fn>)[key]!.call(target, ...(args as never[])));
// A statement with parameters through postgres.js or an adapter. postgres.js's are prepared:
// otherwise it describes each one first, a round trip of its own.
const send = (tx: unknown, runs: string, text: string, params: readonly unknown[]): Promise<unknown> =>
  runs === 'unsafe'
    ? call(tx, runs, text, [...params], { prepare: true })
    : call(tx, runs, text, [...params]);

/**
 * Resolves once the promise jobs queued so far have run (a `process.nextTick` waits for them):
 * a driver that starts a query in a promise job, as postgres.js does, has started those queries.
 */
const afterQueuedJobs = () => new Promise<void>((resolve) => process.nextTick(resolve));

/**
 * Whether a driver's or an adapter's answer to the INSERT says it wrote the row: a count of rows
 * (postgres.js `count`, pg `rowCount`, Kysely `numAffectedRows`, Prisma's `$executeRawUnsafe`
 * answers with the number itself). An answer without a count says nothing.
 */
function wrote(result: unknown): boolean {
  if (typeof result === 'number' || typeof result === 'bigint') return result > 0;
  if (typeof result !== 'object' || result === null) return false;
  const { count, rowCount, numAffectedRows } = result as Record<string, unknown>;
  const written = [count, rowCount, numAffectedRows].find(
    (value) => typeof value === 'number' || typeof value === 'bigint',
  ) as number | bigint | undefined;
  return written !== undefined && written > 0;
}

const notInTransaction = (cause?: unknown) =>
  new OutboxTransactionError(
    'NOT_IN_TRANSACTION',
    'enqueue: tx is not inside a transaction (BEGIN was not run on it, or it was already committed or ' +
      'rolled back); enqueue between BEGIN and COMMIT with the same client, so the event commits with your writes',
    { cause },
  );
const aborted = (cause?: unknown) =>
  new OutboxTransactionError(
    'TRANSACTION_ABORTED',
    'enqueue: an earlier statement of this transaction failed, so it can only roll back; nothing was written',
    { cause },
  );

/**
 * Writes the event with the caller's transaction, after making sure it is one: a `pg` client
 * tells its transaction status itself (no round trip) when nothing it was sent is still ahead.
 * postgres.js and a `query(text, values)` adapter write at once where the transaction has
 * already written (a sale's row before its event), which no statement outside a transaction
 * block can have done; otherwise they, and a `pg` client with queries ahead (sent together in
 * pipeline mode, a COMMIT not awaited), are probed with a savepoint, which PostgreSQL refuses
 * outside a transaction block, before the INSERT (sent together where the driver pipelines).
 * Nothing is written when the check fails. Every INSERT sent with `tx` also makes sure its
 * session is on the store's database (`SAME_DATABASE_GUARD`; `params` ends with the store's
 * database), once per connection, and fails, failing the transaction, where it is not. A
 * serialization failure of the caller's transaction (40001) is a `QUERY_FAILED` whose `cause` is
 * the driver's error: the caller retries its transaction.
 *
 * @throws {OutboxTransactionError} for a `tx` that is not a live transaction, or on another database
 * @throws {PostgresStoreError} `CONNECTION_LOST`, `NOT_MIGRATED`, `QUERY_FAILED`
 */
export async function enqueueWithTx(
  sql: OutboxSql,
  tx: unknown,
  params: readonly unknown[],
  schema: string,
): Promise<void> {
  if (isPool(tx) || has(tx, 'begin')) {
    throw new OutboxTransactionError(
      'NOT_A_TRANSACTION',
      `enqueue: tx is a ${has(tx, 'begin') ? 'postgres.js sql' : 'pool'}, not a transaction; pass ` +
        (has(tx, 'begin')
          ? 'the sql that sql.begin(async (tx) => ...) gives you'
          : 'the client of pool.connect() after BEGIN'),
    );
  }
  const runs = has(tx, 'unsafe') ? 'unsafe' : has(tx, 'query') ? 'query' : undefined;
  if (!runs) {
    throw new OutboxTransactionError(
      'NOT_A_TRANSACTION',
      'enqueue: tx must be a pg client inside BEGIN, a postgres.js transaction sql, or an object with query(text, values)',
    );
  }
  try {
    // A pg client reports the status of its last answer. A query still running or queued ahead
    // of the enqueue (a ROLLBACK not awaited, anything sent together in pipeline mode) may change
    // it before the INSERT runs; then only the server can tell, and the INSERT goes out probed.
    const pgClient = runs === 'query' && has(tx, 'getTransactionStatus');
    const status = pgClient ? settledStatus(tx) : undefined;
    if (status === 'I') throw notInTransaction();
    if (status === 'E') throw aborted();
    if (status === 'T') {
      // pg: the client knows it is inside BEGIN; the INSERT alone, one round trip, as a named
      // statement on a connection known to reach the server directly: parsed and planned once
      // per connection, not at every sale. Elsewhere (a pooler: the name would not outlive the
      // transaction) unnamed; on a connection not known yet, the INSERT also tells which it is.
      const direct = knownDirect(tx);
      if (direct === true) {
        await call(tx, runs, { name: sql.enqueueInTxName, text: sql.enqueueInTx, values: [...params] });
      } else if (direct === false) {
        await call(tx, runs, sql.enqueueInTx, [...params]);
      } else {
        const result = (await call(tx, runs, sql.enqueueInTxLearning, [...params])) as {
          rows?: { backend_pid?: unknown }[];
        };
        const [row] = result?.rows ?? [];
        if (row) learnPgConnection(tx, row.backend_pid);
      }
    } else if (pgClient) {
      // pg behind queries still ahead: the probe and the guarded INSERT, in order behind
      // whatever the caller sent before.
      await probedInsert(tx, runs, sql, params);
    } else {
      // postgres.js and adapters: after the transaction's first write, as in a sale, the guarded
      // INSERT alone. Otherwise (nothing written yet, a
      // duplicate eventId, an answer without a count) the savepoint probe, then the INSERT.
      // postgres.js sends a query when it is awaited, and `sql.begin(tx => [sale, enqueue])`
      // awaits the caller's queries only once the callback has returned, in promise jobs:
      // waiting for those lets the sale go first, so the INSERT follows the write it belongs
      // behind (in the same socket write). Sent first anyway, it writes nothing and is probed.
      const postgresJs = runs === 'unsafe';
      if (postgresJs) await afterQueuedJobs();
      if (wrote(await send(tx, runs, sql.enqueueAfterWrite, params))) return;
      if (postgresJs) {
        await probedInsert(tx, runs, sql, params);
      } else {
        // An adapter runs one statement at a time.
        await call(tx, runs, sql.probeSavepoint);
        await call(tx, runs, sql.probeRelease);
        await send(tx, runs, sql.enqueueInTx, params);
      }
    }
  } catch (caught) {
    const err = otherDatabaseError(caught, schema);
    if (err instanceof OutboxTransactionError) throw err;
    if (codeOf(err) === '25P01') throw notInTransaction(err);
    if (codeOf(err) === '25P02') throw aborted(err);
    throw toOutboxStoreError(err, 'enqueue', schema);
  }
}

/**
 * The probe and the INSERT it guards, sent together: postgres.js pipelines them (one round trip)
 * and a `pg` client queues them behind what it is still running. Both are awaited so neither
 * rejection is left unhandled; the probe's refusal is the one that explains the other's.
 */
async function probedInsert(
  tx: unknown,
  runs: string,
  sql: OutboxSql,
  params: readonly unknown[],
): Promise<void> {
  const [probed, inserted] = await Promise.allSettled([
    call(tx, runs, sql.probeTransaction),
    runs === 'unsafe'
      ? send(tx, runs, sql.enqueueAfterProbe, params)
      : knownDirect(tx) === true
        ? call(tx, runs, {
            name: sql.enqueueAfterProbeName,
            text: sql.enqueueAfterProbe,
            values: [...params],
          })
        : call(tx, runs, sql.enqueueAfterProbe, [...params]),
  ]);
  if (probed.status === 'rejected') throw probed.reason;
  if (inserted.status === 'rejected') throw inserted.reason;
}

/** The store's errors; the outbox's functions missing (step 2 not applied) read as "not migrated". */
export function toOutboxStoreError(err: unknown, what: string, schema: string): PostgresStoreError {
  if (codeOf(err) === '42883' && /outbox_/.test(err instanceof Error ? err.message : '')) {
    return new PostgresStoreError(
      'NOT_MIGRATED',
      `postgresStore ${what}: the outbox of schema "${schema}" is missing: run migrate(db, { schema: '${schema}' }) first`,
      { cause: err },
    );
  }
  return toStoreError(err, `postgresStore ${what}`, schema);
}
