import { describeIssues, type OptionCheck, optionIssues, throwIfInvalid } from '../contract/options-check.js';
import { codeError } from '../internal/code-error.js';

/**
 * Why a {@link RedisStoreError} was raised:
 * - `NOT_A_CLIENT`: `redis` is neither an ioredis client nor a node-redis v4+ client;
 * - `INVALID_OPTIONS`: an option is out of range;
 * - `UNREACHABLE`: the client is closed, not connected, or its connection broke;
 * - `COMMAND_FAILED`: Redis refused a command (`cause` holds its error);
 * - `DELIVERY_LOST`: stored deliveries whose record vanished (evicted, or deleted by hand) while
 *   their id stayed indexed: `claimDue` parks each (listed with the reason) and rejects once with
 *   their ids, so the runner's `onError` shows them. Their bodies are gone: the service's copy is
 *   the only one left.
 */
export type RedisStoreErrorCode =
  | 'NOT_A_CLIENT'
  | 'INVALID_OPTIONS'
  | 'UNREACHABLE'
  | 'COMMAND_FAILED'
  | 'DELIVERY_LOST';

/**
 * An error of a Redis store: bad input when the store is created, or a Redis failure while it
 * runs (the receiver then answers 503, and the service delivers the event again later).
 *
 * @example
 * ```ts
 * import { RedisStoreError, redisInbox } from 'loyalty-partner-sdk/redis';
 * try {
 *   redisInbox({} as never);
 * } catch (err) {
 *   if (err instanceof RedisStoreError) console.error(err.code); // 'NOT_A_CLIENT'
 * }
 * ```
 */
export class RedisStoreError extends codeError<'RedisStoreError', RedisStoreErrorCode>('RedisStoreError') {}

// ioredis: "Connection is closed.", "Stream isn't writeable", MaxRetriesPerRequestError;
// node-redis: ClientClosedError, ClientOfflineError, SocketClosedUnexpectedlyError.
const UNREACHABLE =
  /closed|offline|not writeable|isn't writeable|MaxRetriesPerRequest|ECONNREFUSED|ECONNRESET|EPIPE|ETIMEDOUT|connect/i;

/** Turns a client error into a {@link RedisStoreError} that says what to do. */
export function toRedisError(err: unknown, what: string): RedisStoreError {
  if (err instanceof RedisStoreError) return err;
  const name = err instanceof Error ? err.name : '';
  const detail = err instanceof Error ? err.message : String(err);
  if (UNREACHABLE.test(`${name} ${detail}`)) {
    return new RedisStoreError(
      'UNREACHABLE',
      `${what}: Redis is unreachable (${detail}); check that the server runs and that the client is connected (node-redis: await client.connect())`,
      { cause: err },
    );
  }
  return new RedisStoreError('COMMAND_FAILED', `${what}: ${detail}`, { cause: err });
}

/** Refuses `what`'s options that fail their checks, every fault in one `INVALID_OPTIONS` error. */
export function checkOptions(what: string, checks: readonly OptionCheck[]): void {
  throwIfInvalid(
    optionIssues(checks),
    (all) => new RedisStoreError('INVALID_OPTIONS', `${what}: ${describeIssues(all)}`),
  );
}

/** A `catch` handler that rethrows what it gets as {@link toRedisError} says. */
export const rethrowAs =
  (what: string) =>
  (err: unknown): never => {
    throw toRedisError(err, what);
  };
