import { codeError } from '../internal/code-error.js';
import { codeOf } from '../internal/code-of.js';

/**
 * Why a {@link PostgresStoreError} was raised:
 * - `NOT_A_CLIENT`: `db` is not a `pg` Pool, Client or PoolClient nor a postgres.js `sql`, or is
 *   a postgres.js transaction `sql` given to a store (only `migrate` takes one);
 * - `INVALID_SCHEMA`: the schema is not a plain identifier, or is PostgreSQL's own (`pg_*`);
 * - `INCOMPATIBLE_SCHEMA`: `migrate` found a table of its name, not its own, lacking columns;
 * - `INVALID_OPTIONS`: another option is out of range;
 * - `UNREACHABLE`: no connection to the server could be made;
 * - `CONNECTION_LOST`: the connection broke during a statement;
 * - `NOT_MIGRATED`: the tables are missing: run `migrate(db, { schema })` first;
 * - `QUERY_FAILED`: the server refused a statement for another reason (`cause` holds its error);
 * - `CLIENT_IN_TRANSACTION`: `db` is a single `pg` client with a transaction open on it, which
 *   the store's statement would have joined: give the store a Pool, or a client of its own;
 * - `TRANSACTION_ENDED`: a handler used its `ctx.tx` after it returned;
 * - `HANDLER_ENDED_TRANSACTION`: a handler ended its transaction itself (ROLLBACK or COMMIT
 *   through `ctx.tx`), so the run failed (a stored delivery goes `dead`): throw instead;
 * - `LISTEN_NOT_WORKING`: reported to `onError`, never thrown: the outbox's `listen` connection
 *   goes through a transaction pooler and the outbox polls;
 * - `PREPARES_BEHIND_POOLER`: reported to `onError`, never thrown: a postgres.js `sql` behind a
 *   pooler without `prepare: false`;
 * - `READ_ONLY`: the server refused a write (25006, a standby after a failover): point the URL at
 *   the writer endpoint.
 */
export type PostgresStoreErrorCode =
  | 'NOT_A_CLIENT'
  | 'INVALID_SCHEMA'
  | 'INCOMPATIBLE_SCHEMA'
  | 'INVALID_OPTIONS'
  | 'UNREACHABLE'
  | 'CONNECTION_LOST'
  | 'NOT_MIGRATED'
  | 'QUERY_FAILED'
  | 'CLIENT_IN_TRANSACTION'
  | 'TRANSACTION_ENDED'
  | 'HANDLER_ENDED_TRANSACTION'
  | 'LISTEN_NOT_WORKING'
  | 'PREPARES_BEHIND_POOLER'
  | 'READ_ONLY';

/**
 * An error of a Postgres store or of `migrate`: bad input when the store is created, or a
 * database failure while it runs (a receiver answers 503, so the delivery comes back). The
 * message says what to fix; never a connection string or a password.
 *
 * @example
 * ```ts
 * import { PostgresStoreError, postgresInbox } from 'loyalty-partner-sdk/postgres';
 * try {
 *   postgresInbox({} as never, { schema: 'loyalty' });
 * } catch (err) {
 *   if (err instanceof PostgresStoreError) console.error(err.code); // 'NOT_A_CLIENT'
 * }
 * ```
 */
export class PostgresStoreError extends codeError<'PostgresStoreError', PostgresStoreErrorCode>(
  'PostgresStoreError',
) {}

/**
 * Why {@link OutboxTransactionError} was raised by `outbox.enqueue(type, payload, { tx })`:
 * - `NOT_A_TRANSACTION`: `tx` is a `pg` Pool, the top-level postgres.js `sql`, or no client;
 * - `NOT_IN_TRANSACTION`: `tx` is outside a transaction block (no `BEGIN`, or already ended);
 * - `TRANSACTION_ABORTED`: an earlier statement of the transaction failed; it can only roll back;
 * - `OTHER_DATABASE`: `tx` is on another database than the store's, where this outbox never sends:
 *   the check made the transaction fail, so roll it back.
 */
export type OutboxTransactionErrorCode =
  | 'NOT_A_TRANSACTION'
  | 'NOT_IN_TRANSACTION'
  | 'TRANSACTION_ABORTED'
  | 'OTHER_DATABASE';

/**
 * The `tx` given to `enqueue` cannot carry the event: nothing was written. The message says
 * what to pass instead.
 *
 * @example
 * ```ts
 * import { OutboxTransactionError } from 'loyalty-partner-sdk/postgres';
 * function explain(err: unknown) {
 *   if (err instanceof OutboxTransactionError && err.code === 'NOT_IN_TRANSACTION') {
 *     console.error('enqueue between BEGIN and COMMIT, with the same client');
 *   }
 * }
 * ```
 */
export class OutboxTransactionError extends codeError<'OutboxTransactionError', OutboxTransactionErrorCode>(
  'OutboxTransactionError',
) {}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ETIMEDOUT',
  'CONNECT_TIMEOUT',
  'EAI_AGAIN',
]);
const LOST_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  '57P01', // admin_shutdown: pg_terminate_backend, server stop
  '57P02',
  '57P03',
]);
const LOST_MESSAGE = /Connection terminated|connection is closed|Client has encountered a connection error/i;

/**
 * True when a statement failed only for how it met other transactions (a serialization failure
 * under REPEATABLE READ or SERIALIZABLE, a deadlock): it was rolled back, and may run again.
 */
export const isConflict = (err: unknown): boolean => ['40001', '40P01'].includes(codeOf(err));

/** True when the connection that ran the statement can no longer be used. */
export function isConnectionError(err: unknown): boolean {
  const code = codeOf(err);
  if (LOST_CODES.has(code) || CONNECTION_CODES.has(code) || code.startsWith('08')) return true;
  return LOST_MESSAGE.test(err instanceof Error ? err.message : '');
}

/** Turns a driver error into a {@link PostgresStoreError} that says what to do. */
export function toStoreError(err: unknown, what: string, schema: string): PostgresStoreError {
  if (err instanceof PostgresStoreError) return err;
  const code = codeOf(err);
  const detail = err instanceof Error ? err.message : String(err);
  const said = (as: PostgresStoreErrorCode, message: string) =>
    new PostgresStoreError(as, `${what}: ${message}`, { cause: err });
  if (CONNECTION_CODES.has(code) || code === '08001' || (code === '08006' && /connect/i.test(detail))) {
    return said(
      'UNREACHABLE',
      `cannot connect to PostgreSQL (${code || detail}); check the host, port and that the server runs`,
    );
  }
  if (isConnectionError(err)) {
    return said(
      'CONNECTION_LOST',
      `the PostgreSQL connection was lost (${code || detail}); the delivery is retried, check the server and the pool's connection limits`,
    );
  }
  if (code === '25006') {
    return said(
      'READ_ONLY',
      'the server is read-only (25006: a primary turned standby after a failover, or a read-only role or database); ' +
        "point the connection at the cluster's writer endpoint; the store tries again on new connections",
    );
  }
  if (code === '42P01' || code === '3F000') {
    return said(
      'NOT_MIGRATED',
      `the tables of schema "${schema}" are missing: run migrate(db, { schema: '${schema}' }) first`,
    );
  }
  return said('QUERY_FAILED', detail);
}

/** A `catch` handler that rethrows what it gets as {@link toStoreError} says. */
export const rethrowAs =
  (what: string, schema: string) =>
  (err: unknown): never => {
    throw toStoreError(err, what, schema);
  };
