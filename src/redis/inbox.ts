import { DEDUP_WINDOW_MARGIN_MS, DEDUP_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { describeIssues, optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import type { DeferredInboxStore, InboxClaim, InboxKey } from '../webhooks/inbox.js';
import { evalScript, type RedisLike, toRedisCommand } from './client.js';
import { RedisStoreError, toRedisError } from './errors.js';
import { redisDeliveries } from './inbox-deliveries.js';

/**
 * Options of {@link redisInbox}.
 */
export interface RedisInboxOptions {
  /**
   * Put before every key, to share one Redis between applications.
   * @default 'loyalty:'
   */
  prefix?: string;
  /**
   * How long a claim holds before another delivery may take it over (its process is presumed
   * dead). Longer than your slowest handler.
   * @default 600_000 (10 minutes)
   */
  leaseMs?: number;
  /**
   * How long a done marker is kept (in deferred mode: a handled delivery and its raw body): the
   * contract's 24-hour dedup window plus a margin.
   * @default 90_000_000 (25 hours)
   */
  ttlMs?: number;
}

/**
 * The defaults of {@link redisInbox}, declared once.
 *
 * @example
 * ```ts
 * import { REDIS_INBOX_DEFAULTS } from 'loyalty-partner-sdk/redis';
 * REDIS_INBOX_DEFAULTS.ttlMs / 3_600_000; // 25
 * ```
 */
export const REDIS_INBOX_DEFAULTS = {
  prefix: 'loyalty:',
  leaseMs: 10 * 60_000,
  ttlMs: DEDUP_WINDOW_MS + DEDUP_WINDOW_MARGIN_MS,
} as const satisfies Required<RedisInboxOptions>;

// Deletes the claim only if it is still this process's (a taken-over claim is not ours).
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

// Renews the claim only if it is still this process's.
const EXTEND = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0`;

/**
 * The receiver inbox in Redis: the handler runs once per `eventId` across every process that
 * shares the server. A claim is `SET key token NX PX leaseMs` (it expires by itself when its
 * process dies, and is renewed while its handler runs), a finished event a `done` marker kept
 * 25 hours. With `createReceiver({ deferred: true })` it also stores deliveries (one Redis
 * server, not a Cluster). Handler effects are not part of
 * the claim: one that crashes after writing and before `complete` runs again on redelivery.
 *
 * @throws {RedisStoreError} `NOT_A_CLIENT` or `INVALID_OPTIONS` at once; `UNREACHABLE` or
 * `COMMAND_FAILED` while running (the receiver answers 503)
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 * import { redisInbox } from 'loyalty-partner-sdk/redis';
 * export const receiver = createReceiver({
 *   secrets: 'whsec_example',
 *   inbox: redisInbox(new Redis('redis://127.0.0.1:6379'), { prefix: 'loyalty:' }),
 *   handlers: {},
 * });
 * ```
 */
export function redisInbox(redis: RedisLike, options: RedisInboxOptions = {}): DeferredInboxStore {
  const { prefix, leaseMs, ttlMs } = mergeDefaults<RedisInboxOptions>(REDIS_INBOX_DEFAULTS, options);
  const issues = optionIssues([
    ['prefix', typeof prefix === 'string', 'must be a string'],
    wholeNumber('leaseMs', leaseMs, 1, undefined, 'milliseconds'),
    wholeNumber('ttlMs', ttlMs, 1, undefined, 'milliseconds'),
  ]);
  throwIfInvalid(
    issues,
    (all) => new RedisStoreError('INVALID_OPTIONS', `redisInbox: ${describeIssues(all)}`),
  );
  const command = toRedisCommand(redis, 'redisInbox');
  const keyOf = (key: InboxKey) => `${prefix}inbox:${key.eventId}`;
  // This process's claims, so `release` deletes only a claim it still holds.
  const tokens = new Map<string, string>();

  return {
    ...redisDeliveries(command, { prefix, leaseMs, retentionMs: ttlMs }),
    leaseMs,
    async extend(key) {
      const token = tokens.get(key.eventId);
      if (token === undefined) return false;
      try {
        return (await evalScript(command, EXTEND, keyOf(key), [token, leaseMs])) === 1;
      } catch (err) {
        throw toRedisError(err, 'redisInbox extend');
      }
    },
    async begin(key): Promise<InboxClaim> {
      const token = `claim:${globalThis.crypto.randomUUID()}`;
      try {
        const set = await command(['SET', keyOf(key), token, 'NX', 'PX', String(leaseMs)]);
        if (set === 'OK') {
          tokens.set(key.eventId, token);
          return 'new';
        }
        // No value: released between the two commands. The service comes back later.
        return (await command(['GET', keyOf(key)])) === 'done' ? 'done' : 'in-progress';
      } catch (err) {
        throw toRedisError(err, 'redisInbox begin');
      }
    },
    async complete(key) {
      tokens.delete(key.eventId);
      try {
        await command(['SET', keyOf(key), 'done', 'PX', String(ttlMs)]);
      } catch (err) {
        throw toRedisError(err, 'redisInbox complete');
      }
    },
    async release(key) {
      const token = tokens.get(key.eventId);
      tokens.delete(key.eventId);
      if (token === undefined) return;
      try {
        await evalScript(command, RELEASE, keyOf(key), [token]);
      } catch (err) {
        throw toRedisError(err, 'redisInbox release');
      }
    },
  };
}
