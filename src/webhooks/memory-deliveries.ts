import type {
  ClaimedDelivery,
  DeferredInboxStore,
  DeliveryFailure,
  DeliveryQuery,
  DeliveryRecord,
  DeliveryState,
  StoredDelivery,
} from './inbox.js';
import { foldTenantStats, type TenantStateCount } from './tenant-stats.js';

/** One stored delivery and where it stands. */
interface Entry {
  delivery: StoredDelivery;
  state: DeliveryState;
  attempts: number;
  nextAttemptAt: number;
  owner: string | undefined;
  leaseUntil: number;
  lastError: string | undefined;
  settledAt: number | undefined;
}

type DeferredPart = Omit<DeferredInboxStore, 'begin' | 'complete' | 'release' | 'transaction' | 'extend'>;

/**
 * The deferred half of `memoryInbox()`: stored deliveries in this process's memory, in insertion
 * order. Enough for tests and a single process that may lose what it holds on restart.
 */
export function memoryDeliveries(settings: {
  leaseMs: number;
  retentionMs: number;
  now: () => number;
}): DeferredPart {
  const { leaseMs, retentionMs, now } = settings;
  const entries = new Map<string, Entry>();

  const held = (claim: { eventId: string; owner: string }): Entry | undefined => {
    const entry = entries.get(claim.eventId);
    return entry?.state === 'pending' && entry.owner === claim.owner && entry.leaseUntil > now()
      ? entry
      : undefined;
  };
  const settle = (entry: Entry, state: DeliveryState, lastError: string | undefined): true => {
    entry.state = state;
    entry.owner = undefined;
    entry.lastError = lastError;
    entry.settledAt = now();
    return true;
  };
  const record = (entry: Entry): DeliveryRecord => ({
    eventId: entry.delivery.eventId,
    eventType: entry.delivery.eventType,
    tenantId: entry.delivery.tenantId,
    state: entry.state,
    attempts: entry.attempts,
    lastError: entry.lastError,
    receivedAt: new Date(entry.delivery.receivedAt),
    nextAttemptAt: entry.state === 'pending' ? new Date(entry.nextAttemptAt) : undefined,
    settledAt: entry.settledAt === undefined ? undefined : new Date(entry.settledAt),
  });

  return {
    leaseMs,
    async store(delivery, state, reason) {
      if (entries.has(delivery.eventId)) return 'duplicate';
      const at = now();
      entries.set(delivery.eventId, {
        delivery,
        state,
        attempts: 0,
        nextAttemptAt: at,
        owner: undefined,
        leaseUntil: 0,
        lastError: state === 'parked' ? (reason ?? 'parked when received') : undefined,
        settledAt: state === 'parked' ? at : undefined,
      });
      return 'stored';
    },
    async claimDue(owner, limit) {
      const at = now();
      const claimed: ClaimedDelivery[] = [];
      const due = [...entries.values()]
        .filter((e) => e.state === 'pending' && e.nextAttemptAt <= at && e.leaseUntil <= at)
        .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
      for (const entry of due.slice(0, limit)) {
        entry.owner = owner;
        entry.leaseUntil = at + leaseMs;
        entry.attempts += 1;
        claimed.push({ ...entry.delivery, owner, attempt: entry.attempts });
      }
      return claimed;
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
    async markFailed(claim, failure: DeliveryFailure) {
      const entry = held(claim);
      if (!entry) return false;
      if (failure.retryInMs === undefined) return settle(entry, 'dead', failure.error);
      entry.owner = undefined;
      entry.leaseUntil = 0;
      entry.nextAttemptAt = now() + failure.retryInMs;
      entry.lastError = failure.error;
      return true;
    },
    async markParked(claim, reason) {
      const entry = held(claim);
      return entry ? settle(entry, 'parked', reason) : false;
    },
    async stats() {
      const counts: Record<DeliveryState, number> = { pending: 0, handled: 0, dead: 0, parked: 0 };
      for (const entry of entries.values()) counts[entry.state] += 1;
      return counts;
    },
    async statsByTenant() {
      const counts: TenantStateCount[] = [];
      for (const { delivery, state } of entries.values())
        if (state !== 'handled')
          counts.push({ tenantId: delivery.tenantId, state, n: 1, oldest: delivery.receivedAt });
      return foldTenantStats(counts);
    },
    async list({ state, tenantId, limit = 100 }: DeliveryQuery) {
      const found: DeliveryRecord[] = [];
      for (const entry of entries.values()) {
        if (found.length >= limit) break;
        if (entry.state === state && (tenantId === undefined || entry.delivery.tenantId === tenantId))
          found.push(record(entry));
      }
      return found;
    },
    async replay(eventId) {
      const entry = entries.get(eventId);
      if (!entry || entry.state === 'pending' || entry.delivery.rawBody === '') return false;
      Object.assign(entry, {
        state: 'pending',
        attempts: 0,
        nextAttemptAt: now(),
        owner: undefined,
        leaseUntil: 0,
        settledAt: undefined,
      });
      return true;
    },
    async discard(eventId) {
      const entry = entries.get(eventId);
      if (!entry || entry.state === 'handled') return false;
      entry.delivery = { ...entry.delivery, rawBody: '' };
      settle(entry, 'handled', 'discarded');
      return true;
    },
    async cleanup(batchSize) {
      const before = now() - retentionMs;
      let deleted = 0;
      for (const [id, entry] of entries) {
        if (deleted >= batchSize) break;
        if (entry.state === 'handled' && (entry.settledAt ?? 0) < before) {
          entries.delete(id);
          deleted += 1;
        }
      }
      return deleted;
    },
  };
}
