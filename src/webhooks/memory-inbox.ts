import { LoyaltyValidationError } from '../contract/errors.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import type {
  ClaimedDelivery,
  DeferredInboxStore,
  DeliveryRecord,
  DeliveryState,
  InboxClaim,
  InboxKey,
  StoredDelivery,
} from './inbox.js';
import { foldTenantStats, type TenantStateCount } from './tenant-stats.js';

/** Options of {@link memoryInbox}. */
export interface MemoryInboxOptions {
  /**
   * How long a handled event id (deferred: with its body) is remembered, in milliseconds: the
   * service's 24-hour response cache and an hour more.
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
   * How long a claim holds, in milliseconds, before the next delivery of the event takes it over,
   * so an event is never wedged at 503 `EVENT_IN_PROGRESS`. Longer than the receiver's
   * `handlerTimeoutMs` (checked by `createReceiver`).
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
 * The default inbox: one record per event id in this process's memory, handled ones kept at least
 * 24 hours and bounded in size; with `createReceiver({ deferred: true })`, the stored deliveries
 * too (immediate and deferred receipt share the record). Enough for one process; it forgets
 * everything on restart and is not shared between processes, so use a database-backed store in
 * production (see the README). It keeps no audit trail (`audit` is ignored).
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
  const positive = (value: number) => value > 0 && value < Number.POSITIVE_INFINITY;
  const issues = optionIssues([
    ['ttlMs', positive(ttlMs), 'must be > 0'],
    wholeNumber('maxEntries', maxEntries, 1),
    ['leaseMs', positive(leaseMs), 'must be > 0'],
    ['now', typeof now === 'function', 'must be a function'],
  ]);
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid memoryInbox options', all),
  );

  const records = new Map<string, Entry>();
  // Handled ids in the order they were handled (the oldest first), for the bound and the TTL.
  const handledAt = new Map<string, number>();

  const forget = (at: number, batchSize = Number.POSITIVE_INFINITY): number => {
    let deleted = 0;
    for (const [id, settledAt] of handledAt) {
      if (deleted >= batchSize || (settledAt > at - ttlMs && handledAt.size <= maxEntries)) break;
      handledAt.delete(id);
      records.delete(id);
      deleted += 1;
    }
    return deleted;
  };
  const settle = (entry: Entry, state: DeliveryState, lastError: string | undefined): true => {
    Object.assign(entry, { state, owner: undefined, leaseUntil: 0, lastError, settledAt: now() });
    handledAt.delete(entry.eventId);
    if (state === 'handled') {
      handledAt.set(entry.eventId, entry.settledAt ?? 0);
      forget(now());
    }
    return true;
  };
  const leased = (entry: Entry) => entry.state === 'pending' && entry.leaseUntil > now();
  const held = (claim: { eventId: string; owner: string }): Entry | undefined => {
    const entry = records.get(claim.eventId);
    return entry && leased(entry) && entry.owner === claim.owner ? entry : undefined;
  };
  const take = (entry: Entry, owner: string): Entry => {
    handledAt.delete(entry.eventId);
    return Object.assign(entry, {
      state: 'pending',
      owner,
      leaseUntil: now() + leaseMs,
      attempts: entry.attempts + 1,
      settledAt: undefined,
    });
  };
  const receipt = (id: string) => {
    const entry = records.get(id);
    return entry?.state === 'pending' && entry.owner === RECEIPT ? entry : undefined;
  };
  const record = (entry: Entry): DeliveryRecord => ({
    eventId: entry.eventId,
    eventType: entry.eventType,
    tenantId: entry.tenantId,
    state: entry.state,
    attempts: entry.attempts,
    lastError: entry.lastError,
    receivedAt: new Date(entry.receivedAt),
    nextAttemptAt: entry.state === 'pending' ? new Date(entry.nextAttemptAt) : undefined,
    settledAt: entry.settledAt === undefined ? undefined : new Date(entry.settledAt),
  });
  /** A new record of the event, pending, kept from now on. */
  const add = (key: InboxKey, delivery: StoredDelivery | undefined): Entry => {
    const entry: Entry = {
      ...key,
      delivery,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now(),
      owner: undefined,
      leaseUntil: 0,
      lastError: undefined,
      receivedAt: delivery?.receivedAt ?? now(),
      settledAt: undefined,
    };
    records.set(key.eventId, entry);
    return entry;
  };

  return {
    leaseMs,
    begin(key: InboxKey): InboxClaim {
      forget(now());
      const entry = records.get(key.eventId);
      if (entry?.state === 'handled') return 'done';
      if (entry && leased(entry)) return 'in-progress';
      // New, or stored and not running, a receipt whose process died, or dead or parked (the
      // service sent it again: the handler gets another chance).
      take(entry ?? add(key, undefined), RECEIPT);
      return 'new';
    },
    complete({ eventId }: InboxKey): void {
      const entry = receipt(eventId);
      if (entry) settle(entry, 'handled', undefined);
    },
    release({ eventId }: InboxKey): void {
      const entry = receipt(eventId);
      if (!entry) return;
      if (!entry.delivery) records.delete(eventId);
      else Object.assign(entry, { owner: undefined, leaseUntil: 0, nextAttemptAt: now() });
    },
    extend({ eventId }: InboxKey): boolean {
      const entry = receipt(eventId);
      if (entry) entry.leaseUntil = now() + leaseMs;
      return entry !== undefined;
    },
    async store(delivery, state, reason) {
      forget(now());
      const entry = records.get(delivery.eventId);
      if (entry) {
        if (entry.state !== 'pending' || entry.delivery) return 'duplicate';
        // An immediate receipt still running: it keeps its lease, the body waits for its outcome.
        entry.delivery = delivery;
        return 'stored';
      }
      const created = add(delivery, delivery);
      if (state === 'parked') settle(created, 'parked', reason ?? 'parked when received');
      return 'stored';
    },
    async claimDue(owner, limit) {
      const at = now();
      const due = [...records.values()]
        .filter((e) => e.delivery && e.state === 'pending' && e.nextAttemptAt <= at && e.leaseUntil <= at)
        .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt)
        .slice(0, limit);
      return due.map((entry): ClaimedDelivery => {
        take(entry, owner);
        return { ...(entry.delivery as StoredDelivery), owner, attempt: entry.attempts };
      });
    },
    async extendLease(owner, eventIds) {
      const lost: string[] = [];
      for (const eventId of eventIds) {
        const entry = held({ eventId, owner });
        if (entry) entry.leaseUntil = now() + leaseMs;
        else lost.push(eventId);
      }
      return lost;
    },
    async markHandled(claim) {
      const entry = held(claim);
      return entry ? settle(entry, 'handled', undefined) : false;
    },
    async markFailed(claim, failure) {
      const entry = held(claim);
      if (!entry) return false;
      if (failure.retryInMs === undefined) return settle(entry, 'dead', failure.error);
      const nextAttemptAt = now() + failure.retryInMs;
      Object.assign(entry, { owner: undefined, leaseUntil: 0, nextAttemptAt, lastError: failure.error });
      return true;
    },
    async markParked(claim, reason) {
      const entry = held(claim);
      return entry ? settle(entry, 'parked', reason) : false;
    },
    async stats() {
      forget(now());
      const counts: Record<DeliveryState, number> = { pending: 0, handled: 0, dead: 0, parked: 0 };
      for (const entry of records.values()) counts[entry.state] += 1;
      return counts;
    },
    async statsByTenant(query) {
      const counts: TenantStateCount[] = [];
      for (const { tenantId, state, receivedAt } of records.values())
        if (state !== 'handled') counts.push({ tenantId, state, n: 1, oldest: receivedAt });
      return foldTenantStats(counts, query);
    },
    async list({ state, tenantId, limit = 100 }) {
      const found: DeliveryRecord[] = [];
      for (const entry of [...records.values()].sort((a, b) => a.receivedAt - b.receivedAt)) {
        if (found.length >= limit) break;
        if (entry.state === state && (tenantId === undefined || entry.tenantId === tenantId))
          found.push(record(entry));
      }
      return found;
    },
    async replay(eventId) {
      const entry = records.get(eventId);
      if (!entry?.delivery || entry.state === 'pending') return false;
      handledAt.delete(eventId);
      Object.assign(entry, { state: 'pending', attempts: 0, nextAttemptAt: now(), settledAt: undefined });
      return true;
    },
    async discard(eventId) {
      const entry = records.get(eventId);
      if (!entry || entry.state === 'handled' || leased(entry)) return false;
      entry.delivery = undefined;
      return settle(entry, 'handled', 'discarded');
    },
    async cleanup(batchSize) {
      return forget(now(), batchSize);
    },
  };
}

/** The owner of a claim taken by an immediate receipt (`begin`). */
const RECEIPT = 'receipt';

/** The one record of an event id. */
interface Entry extends InboxKey {
  /** Absent while only an immediate receipt holds the record. */
  delivery: StoredDelivery | undefined;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  owner: string | undefined;
  leaseUntil: number;
  lastError: string | undefined;
  receivedAt: number;
  settledAt: number | undefined;
}
