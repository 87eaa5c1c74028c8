import { DEDUP_WINDOW_MARGIN_MS, DEDUP_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { wholeNumber } from '../contract/options-check.js';
import type { DeferredInboxStore, InboxClaim } from '../webhooks/inbox.js';
import { evalScript, type RedisLike, toRedisCommand } from './client.js';
import { checkOptions, rethrowAs } from './errors.js';
import { redisDeliveries } from './inbox-deliveries.js';
import { inboxKeys, SCRIPTS } from './inbox-scripts.js';

/** Options of {@link redisInbox}. */
export interface RedisInboxOptions {
  /**
   * Put before every key, to share one Redis between applications. The inbox's keys follow it
   * under the hash tag `{inbox}` (`loyalty:{inbox}:…`), so a Redis Cluster keeps them in one slot;
   * a prefix with its own tag (`'loyalty:{shop-7}:'`) is used as it is.
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
   * How long a handled event is remembered (a stored delivery: with its raw body, until
   * `cleanup`): the contract's 24-hour dedup window plus a margin.
   * @default 90_000_000 (25 hours)
   */
  ttlMs?: number;
}

/** The defaults of {@link redisInbox}, `migrateRedisInbox`'s `prefix` too. */
export const REDIS_INBOX_DEFAULTS = {
  prefix: 'loyalty:',
  leaseMs: 10 * 60_000,
  ttlMs: DEDUP_WINDOW_MS + DEDUP_WINDOW_MARGIN_MS,
} as const satisfies Required<RedisInboxOptions>;

/**
 * The receiver inbox in Redis: the handler runs once per `eventId` across every process that
 * shares the server or cluster. Each event is ONE record (a hash), whatever the mode: an
 * immediate receipt claims it for `leaseMs` (renewed while its handler runs), marks it handled
 * (kept `ttlMs`), or releases it; `createReceiver({ deferred: true })` stores the delivery in the
 * same record, so switching modes never runs a handled event again. Works on a standalone Redis,
 * Valkey, or a Redis Cluster (every key under one hash tag: `{inbox}`, or the one in `prefix`).
 * Handler effects are not part of the claim: one that crashes after writing and before
 * `complete` runs again on redelivery.
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
  checkOptions('redisInbox', [
    ['prefix', typeof prefix === 'string', 'must be a string'],
    wholeNumber('leaseMs', leaseMs, 1, undefined, 'milliseconds'),
    wholeNumber('ttlMs', ttlMs, 1, undefined, 'milliseconds'),
  ]);
  const command = toRedisCommand(redis, 'redisInbox');
  const keys = inboxKeys(prefix);
  // This process's claims, so only a claim it still holds is completed, released or renewed.
  const tokens = new Map<string, string>();
  const run = (what: string, script: string, eventId: string, args: (string | number)[]) =>
    evalScript(command, script, [...keys.indexes, keys.record(eventId)], [eventId, ...args]).catch(
      rethrowAs(`redisInbox ${what}`),
    );
  /** Ends this process's claim of the event, if it still holds one. */
  const end = async (what: 'complete' | 'release', eventId: string, args: (string | number)[]) => {
    const token = tokens.get(eventId);
    tokens.delete(eventId);
    if (token !== undefined) await run(what, SCRIPTS[what], eventId, [token, ...args]);
  };

  return {
    ...redisDeliveries(command, { keys, leaseMs, retentionMs: ttlMs }),
    leaseMs,
    async begin(key): Promise<InboxClaim> {
      const token = `claim:${globalThis.crypto.randomUUID()}`;
      const args = [token, leaseMs, ttlMs, key.eventType, key.tenantId];
      const claim = (await run('begin', SCRIPTS.begin, key.eventId, args)) as InboxClaim;
      if (claim === 'new') tokens.set(key.eventId, token);
      return claim;
    },
    complete: (key) => end('complete', key.eventId, [ttlMs]),
    release: (key) => end('release', key.eventId, []),
    async extend(key) {
      const token = tokens.get(key.eventId);
      if (token === undefined) return false;
      return (await run('extend', SCRIPTS.extend, key.eventId, [token, leaseMs])) === 1;
    },
  };
}
