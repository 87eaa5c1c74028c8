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
 * A single `pg` client's transaction status (`'I'`, `'T'`, `'E'`); `undefined` while a query sent
 * on it is unanswered (it may change the status) or for a client that cannot tell.
 */
export function settledStatus(client: unknown): string | undefined {
  const state = client as PgClientState;
  if (typeof state.getTransactionStatus !== 'function' || state.readyForQuery === false) return undefined;
  return state.getTransactionStatus() ?? undefined;
}

/**
 * Sends a store's statement on a single `pg` client only outside any transaction: inside the
 * application's `BEGIN`, a claim would send the sale's uncommitted event, which a `ROLLBACK` would
 * not take back. Waits for `drain`, checks and sends in one tick; a client that cannot tell is used.
 *
 * @throws {PostgresStoreError} `CLIENT_IN_TRANSACTION` when a transaction is open then
 */
export function outsideTransaction<T>(client: unknown, statement: () => Promise<T>): Promise<T> {
  const state = client as PgClientState;
  if (typeof state.getTransactionStatus !== 'function' || typeof state.once !== 'function')
    return statement();
  // A broken or ended client never drains again: it answers the statement with its error at once.
  if (state._queryable === false || state._ending === true || state._ended === true) return statement();
  if (state.readyForQuery === false) {
    return nextWake(state).then((event) =>
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
