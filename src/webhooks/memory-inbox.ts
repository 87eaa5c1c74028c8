import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import type { DeferredInboxStore, InboxClaim, InboxKey } from './inbox.js';
import { memoryDeliveries } from './memory-deliveries.js';

/**
 * Options of {@link memoryInbox}.
 */
export interface MemoryInboxOptions {
  /**
   * How long a handled event id (in deferred mode: a handled delivery and its body) is
   * remembered, in milliseconds. The service caches responses
   * for 24 hours and its retry ladder ends about 7.5 hours after the first attempt, so the
   * default keeps every id an hour longer than a day.
   * @default 90_000_000 (25 hours)
   */
  ttlMs?: number;
  /**
   * Most handled ids kept. When full, the id handled longest ago is forgotten first, even if it
   * is younger than `ttlMs`: size it above the number of events you receive in 25 hours. Claims
   * still in progress are never evicted (that would let a duplicate run concurrently).
   * @default 100_000
   */
  maxEntries?: number;
  /**
   * How long a claim holds, in milliseconds: a claim neither completed nor released within it
   * (its handler never settled) is taken over by the next delivery of the event, so an event is
   * never wedged at 503 `EVENT_IN_PROGRESS`. Must be longer than the receiver's
   * `handlerTimeoutMs` (checked by `createReceiver`); the service's first redelivery comes a
   * minute after a failed attempt.
   * @default 60_000 (1 minute)
   */
  leaseMs?: number;
  /**
   * The clock, in milliseconds, for tests.
   * @default Date.now
   */
  now?: () => number;
}

// The defaults of memoryInbox, declared once (each is also in its option's @default tag).
const MEMORY_INBOX_DEFAULTS = {
  ttlMs: 25 * 60 * 60 * 1000,
  maxEntries: 100_000,
  leaseMs: 60_000,
  now: Date.now,
} as const satisfies Required<MemoryInboxOptions>;

/**
 * The default inbox: handled event ids in this process's memory, kept at least 24 hours and
 * bounded in size; with `createReceiver({ deferred: true })`, the stored deliveries too. Enough for one process; it forgets everything on restart and is not shared
 * between processes, so use a database-backed `InboxStore` in production (see the README).
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a `ttlMs` or `maxEntries` that is not
 * a positive number
 *
 * @example
 * ```ts
 * import { createReceiver, memoryInbox } from 'loyalty-partner-sdk/webhooks';
 * const receiver = createReceiver({
 *   secrets: 'whsec_example',
 *   inbox: memoryInbox({ maxEntries: 500_000 }),
 *   handlers: {},
 * });
 * ```
 */
export function memoryInbox(options: MemoryInboxOptions = {}): DeferredInboxStore {
  const { ttlMs, maxEntries, leaseMs, now } = mergeDefaults<MemoryInboxOptions>(
    MEMORY_INBOX_DEFAULTS,
    options,
  );
  const issues: ValidationIssue[] = [];
  if (!(ttlMs > 0 && ttlMs < Number.POSITIVE_INFINITY))
    issues.push({ path: 'ttlMs', message: 'must be > 0' });
  if (!(Number.isSafeInteger(maxEntries) && maxEntries > 0)) {
    issues.push({ path: 'maxEntries', message: 'must be a whole number > 0' });
  }
  if (!(leaseMs > 0 && leaseMs < Number.POSITIVE_INFINITY))
    issues.push({ path: 'leaseMs', message: 'must be > 0' });
  if (typeof now !== 'function') issues.push({ path: 'now', message: 'must be a function' });
  if (issues.length)
    throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid memoryInbox options', issues);

  // When each claim in progress was taken: older than the lease, it is taken over.
  const inProgress = new Map<string, number>();
  // Insertion order is completion order, so the first entries are always the oldest.
  const done = new Map<string, number>();

  const forgetExpired = (at: number): void => {
    for (const [id, expiresAt] of done) {
      if (expiresAt > at) break;
      done.delete(id);
    }
  };

  return {
    ...memoryDeliveries({ leaseMs, retentionMs: ttlMs, now }),
    begin({ eventId: id }: InboxKey): InboxClaim {
      const at = now();
      forgetExpired(at);
      const claimedAt = inProgress.get(id);
      if (claimedAt !== undefined && at - claimedAt < leaseMs) return 'in-progress';
      if (done.has(id)) return 'done';
      inProgress.set(id, at);
      return 'new';
    },
    complete({ eventId: id }: InboxKey): void {
      inProgress.delete(id);
      done.delete(id);
      done.set(id, now() + ttlMs);
      for (const oldest of done.keys()) {
        if (done.size <= maxEntries) break;
        done.delete(oldest);
      }
    },
    release({ eventId: id }: InboxKey): void {
      inProgress.delete(id);
    },
    extend({ eventId: id }: InboxKey): boolean {
      if (!inProgress.has(id)) return false;
      inProgress.set(id, now());
      return true;
    },
  };
}
