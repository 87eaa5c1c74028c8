import { codedError } from '../contract/errors.js';

/**
 * Why {@link OutboxTransactionError} was raised by `outbox.enqueue(type, payload, { tx })`:
 * - `NOT_A_TRANSACTION`: `tx` is not a transaction handle: a `pg` Pool (pass the PoolClient
 *   inside `BEGIN`), the top-level postgres.js `sql` (pass the `sql` that `sql.begin` gives),
 *   or no client at all;
 * - `NOT_IN_TRANSACTION`: `tx` is a connection outside a transaction block: `BEGIN` was not run,
 *   or the transaction was already committed or rolled back;
 * - `TRANSACTION_ABORTED`: an earlier statement of the transaction failed; it can only roll back;
 * - `OTHER_DATABASE`: `tx` is a transaction on another database than the store's own (even one
 *   migrated alike): the event would commit where this outbox never sends it. The check made the
 *   transaction fail, so nothing of it commits there: roll it back.
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
export class OutboxTransactionError extends codedError('OutboxTransactionError') {
  readonly code: OutboxTransactionErrorCode;

  constructor(code: OutboxTransactionErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
  }
}
