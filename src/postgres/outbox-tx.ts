import { codeOf } from '../internal/code-of.js';
import { settledStatus } from './client-turn.js';
import { knownDirect, learnPgConnection } from './connection-kind.js';
import { hasMethod, isPgPool, statementName } from './database.js';
import { OutboxTransactionError, PostgresStoreError, toStoreError } from './errors.js';
import type { OutboxSql, TxEnqueueSql } from './outbox-sql.js';
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
const call = (target: unknown, key: string, ...args: unknown[]): Promise<unknown> =>
  Promise.resolve((target as Record<string, Fn>)[key]!.call(target, ...(args as never[])));
/**
 * One statement on the caller's `tx`: prepared by postgres.js (else it describes each first, a round
 * trip), named on a `pg` connection known direct, unnamed on any other (`connection-kind.ts`).
 */
const send = (tx: unknown, runs: string, text: string, params: readonly unknown[]): Promise<unknown> => {
  if (runs === 'unsafe') return call(tx, runs, text, [...params], { prepare: true });
  const name = statementName(text, knownDirect(tx) === true);
  return name === undefined
    ? call(tx, runs, text, [...params])
    : call(tx, runs, { name, text, values: [...params] });
};

/** Once the promise jobs queued so far ran: postgres.js starts the caller's queries in them. */
const afterQueuedJobs = () => new Promise<void>((resolve) => process.nextTick(resolve));

/**
 * Whether the answer to the INSERT counts a row written: postgres.js `count`, pg `rowCount`, Kysely
 * `numAffectedRows`, or Prisma's `$executeRawUnsafe` number. No count says nothing.
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
 * Writes the event in the caller's transaction, making sure it is one with no extra round trip
 * where it can: a settled `pg` client tells its status; postgres.js and adapters write at once where
 * the transaction already wrote; otherwise a savepoint, refused outside a transaction, probes it
 * first. Every INSERT checks it is on the store's database (`SAME_DATABASE_GUARD`). With `fresh` (the
 * enqueue made the `eventId`) the first INSERT does not look for a stored row with that id.
 *
 * @throws {OutboxTransactionError} for a `tx` that is not a live transaction, or on another database
 * @throws {PostgresStoreError} `CONNECTION_LOST`, `NOT_MIGRATED`, `QUERY_FAILED`
 */
export async function enqueueWithTx(
  sql: OutboxSql,
  tx: unknown,
  { params, fresh }: { readonly params: readonly unknown[]; readonly fresh: boolean },
  schema: string,
): Promise<void> {
  const insert = fresh ? sql.enqueueInTx.fresh : sql.enqueueInTx.given;
  if (isPgPool(tx) || hasMethod(tx, 'begin')) {
    throw new OutboxTransactionError(
      'NOT_A_TRANSACTION',
      `enqueue: tx is a ${hasMethod(tx, 'begin') ? 'postgres.js sql' : 'pool'}, not a transaction; pass ` +
        (hasMethod(tx, 'begin')
          ? 'the sql that sql.begin(async (tx) => ...) gives you'
          : 'the client of pool.connect() after BEGIN'),
    );
  }
  const runs = hasMethod(tx, 'unsafe') ? 'unsafe' : hasMethod(tx, 'query') ? 'query' : undefined;
  if (!runs) {
    throw new OutboxTransactionError(
      'NOT_A_TRANSACTION',
      'enqueue: tx must be a pg client inside BEGIN, a postgres.js transaction sql, or an object with query(text, values)',
    );
  }
  try {
    // A pg client with queries still ahead reports no status (they may change it): probed then.
    const pgClient = runs === 'query' && hasMethod(tx, 'getTransactionStatus');
    const status = pgClient ? settledStatus(tx) : undefined;
    if (status === 'I') throw notInTransaction();
    if (status === 'E') throw aborted();
    if (status === 'T') {
      // Inside BEGIN: the INSERT alone; on a connection not known yet, it also tells which it is.
      if (knownDirect(tx) !== undefined) {
        await send(tx, runs, insert.inTx, params);
      } else {
        const result = (await call(tx, runs, insert.inTxLearning, [...params])) as {
          rows?: { backend_pid?: unknown }[];
        };
        learnPgConnection(tx, result?.rows?.[0]?.backend_pid);
      }
    } else if (pgClient) {
      // The probe and the guarded INSERT, queued behind whatever the caller sent before.
      await probedInsert(tx, runs, sql, insert, params);
    } else {
      // postgres.js and adapters: the INSERT if the transaction wrote already; when it writes nothing
      // (nothing written yet, a duplicate eventId, no count) the probe, then the INSERT again. That
      // one leaves a stored eventId as it is, fresh or not: an answer without a count may hide a write.
      const postgresJs = runs === 'unsafe';
      if (postgresJs) await afterQueuedJobs();
      if (wrote(await send(tx, runs, insert.afterWrite, params))) return;
      const again = sql.enqueueInTx.given;
      if (postgresJs) {
        await probedInsert(tx, runs, sql, again, params);
      } else {
        // An adapter runs one statement at a time.
        await call(tx, runs, sql.probeSavepoint);
        await call(tx, runs, sql.probeRelease);
        await send(tx, runs, again.inTx, params);
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
 * The probe and the INSERT it guards, sent together (pipelined by postgres.js, queued by `pg`).
 * Both awaited so no rejection is unhandled; the probe's refusal explains the other's.
 */
async function probedInsert(
  tx: unknown,
  runs: string,
  sql: OutboxSql,
  insert: TxEnqueueSql,
  params: readonly unknown[],
): Promise<void> {
  const [probed, inserted] = await Promise.allSettled([
    call(tx, runs, sql.probeTransaction),
    send(tx, runs, insert.afterProbe, params),
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
