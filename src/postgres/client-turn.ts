import { PostgresStoreError } from './errors.js';

/** What a single `pg` Client tells of the queries ahead of the next one and of its transaction. */
interface PgClientState {
  readyForQuery?: unknown;
  /** pg's marks of a client whose connection failed or ended: it will never drain again. */
  _queryable?: unknown;
  _ending?: unknown;
  _ended?: unknown;
  getTransactionStatus?: () => string | null;
  once?: (event: string, listener: () => void) => unknown;
  removeListener?: (event: string, listener: () => void) => unknown;
}

const WAKE_EVENTS = ['drain', 'error', 'end'] as const;

/** Per client, one wait for its next `drain` (or end) shared by every statement waiting on it. */
const wakes = new WeakMap<object, Promise<string>>();

function nextWake(state: PgClientState): Promise<string> {
  let wake = wakes.get(state);
  if (!wake) {
    wake = new Promise<string>((resolve) => {
      const listeners = WAKE_EVENTS.map((event) => {
        const listener = () => {
          for (const [other, registered] of listeners) state.removeListener?.(other, registered);
          wakes.delete(state);
          resolve(event);
        };
        state.once!(event, listener);
        return [event, listener] as const;
      });
    });
    wakes.set(state, wake);
  }
  return wake;
}

/**
 * The transaction status of a single `pg` client (`'I'` idle, `'T'` in a transaction, `'E'` in a
 * failed one) when nothing sent on it is still unanswered: the status is that of its last
 * answer, so a query still ahead (a `ROLLBACK` not awaited, queries sent together in pipeline
 * mode) may change it before the next one runs. `undefined` then, or for a client that cannot
 * tell.
 */
export function settledStatus(client: unknown): string | undefined {
  const state = client as PgClientState;
  if (typeof state.getTransactionStatus !== 'function' || state.readyForQuery === false) return undefined;
  return state.getTransactionStatus() ?? undefined;
}

/**
 * Sends a store's own statement on a single `pg` client (a Client or PoolClient given as `db`)
 * only when it runs outside any transaction. The application may use the same client: behind
 * its `BEGIN`, a drain's claim would be part of the sale's transaction, see the sale's
 * uncommitted event and send it, and a `ROLLBACK` would then take back the sale but not the
 * event. So the statement waits for what is already on the client to be answered (`drain`),
 * and is sent in the same tick as the check, while nothing is ahead of it: refused with
 * `CLIENT_IN_TRANSACTION` if a transaction is open then (a drain's claim is tried again at the
 * next poll). A client that cannot tell (no `getTransactionStatus`) is used as it is.
 *
 * @throws {PostgresStoreError} `CLIENT_IN_TRANSACTION`
 */
export function outsideTransaction<T>(client: unknown, statement: () => Promise<T>): Promise<T> {
  const state = client as PgClientState;
  if (typeof state.getTransactionStatus !== 'function' || typeof state.once !== 'function')
    return statement();
  // A client whose connection broke or ended keeps `readyForQuery` false for good and emits
  // nothing more: waiting for its next `drain` would wait forever (a drainer stuck while looking
  // alive). It answers the statement with its error at once.
  if (state._queryable === false || state._ending === true || state._ended === true) return statement();
  if (state.readyForQuery === false) {
    return nextWake(state).then((event) =>
      // A client that failed or ended answers the statement with its error at once.
      event === 'drain' ? outsideTransaction(client, statement) : statement(),
    );
  }
  const status = settledStatus(client);
  if (status === 'T' || status === 'E') {
    return Promise.reject(
      new PostgresStoreError(
        'CLIENT_IN_TRANSACTION',
        'the pg client given to the store is inside a transaction (yours, or another store operation on ' +
          'the same client): its statements would be part of it. Give the store a pg Pool, or a client ' +
          'that nothing else uses',
      ),
    );
  }
  return statement();
}
