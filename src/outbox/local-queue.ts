import { type CausalKeys, causalKeys, EarlierKeys } from './causal-keys.js';
import type {
  ClaimOutcome,
  ClaimRequest,
  ClaimSource,
  EventPatch,
  EventState,
  LocalStore,
  StoredEvent,
  StoredTenantStop,
} from './store.js';

interface Entry {
  event: StoredEvent;
  readonly keys: CausalKeys;
  /** Claimed and not answered yet; change it through `setClaimed`, which keeps the counts. */
  claimed: boolean;
  /** In its tenant's `pending` queue. */
  queued: boolean;
  /** Monotonic milliseconds (`performance.now()`) before which it is not tried again. */
  dueAt: number;
}

interface TenantCounts {
  readonly tenantId: string;
  readonly states: Partial<Record<EventState, number>>;
  oldestPendingAt: number | null;
}

/**
 * A local store seen as a shared one, so the scheduler has one code path: `claim` answers in memory
 * what the Postgres store answers in SQL. Times are monotonic: a clock set back delays no retry.
 */
export class LocalQueue implements ClaimSource {
  readonly kind = 'shared';
  private readonly entries = new Map<string, Entry>();
  /** Pending entries per tenant, in `seq` order. */
  private readonly pending = new Map<string, Entry[]>();
  /** Claimed entries of each tenant's pending queue: counted, not scanned for at every claim. */
  private readonly claimedOf = new Map<string, number>();
  /** Entries given a retry wait: while events are in flight, the next wake-up is found among these. */
  private readonly waiting = new Set<Entry>();
  private readonly stops = new Map<string, StoredTenantStop>();
  /** When every event of an offline tenant is due: its next probe (`dueAt`). */
  private readonly probeDue = new Map<string, number>();

  constructor(
    readonly store: LocalStore,
    private readonly monotonic: () => number,
  ) {}

  async open(): Promise<{ readonly stoppedTenants: readonly StoredTenantStop[] }> {
    const snapshot = await this.store.open();
    // A kept wait (`until`) is no stop: the scheduler holds the tenant until it is over.
    for (const stop of snapshot.stoppedTenants)
      if (stop.until === undefined) this.stops.set(stop.tenantId, stop);
    for (const event of snapshot.events) this.hold(event);
    return { stoppedTenants: snapshot.stoppedTenants };
  }

  /** Highest `seq` held, so new events number on from it. */
  get lastSeq(): number {
    let last = 0;
    for (const { event } of this.entries.values()) last = Math.max(last, event.seq);
    return last;
  }

  async append(event: StoredEvent): Promise<void> {
    if (this.entries.has(event.eventId)) return;
    await this.store.append(event);
    if (!this.entries.has(event.eventId)) this.hold(event);
  }

  /** @param newTenants How many tenants with nothing in flight may start sending now (`concurrency`). */
  claim(request: ClaimRequest, newTenants = Number.POSITIVE_INFINITY): Promise<StoredEvent[]> {
    const now = this.monotonic();
    let startable = newTenants;
    const claimed: StoredEvent[] = [];
    const only = request.onlyTenants && new Set(request.onlyTenants);
    const skip = new Set(request.skipTenants);
    for (const [tenantId, queue] of this.pending) {
      if (claimed.length >= request.limit) break;
      if (skip.has(tenantId) || this.stops.has(tenantId) || (only && !only.has(tenantId))) continue;
      const inFlight = this.claimedOf.get(tenantId) ?? 0;
      if (inFlight === 0 && startable <= 0) continue;
      let room = request.maxInFlight - inFlight;
      const before = claimed.length;
      const earlier = new EarlierKeys();
      for (const entry of queue) {
        if (room <= 0 || claimed.length >= request.limit) break;
        if (!earlier.holdBack(entry.keys) && !entry.claimed && entry.dueAt <= now) {
          this.setClaimed(entry, true);
          claimed.push(entry.event);
          room -= 1;
        }
        // Claimed or not, due or not, a pending event holds back what conflicts with it.
        earlier.add(entry.keys);
      }
      if (inFlight === 0 && claimed.length > before) startable -= 1;
    }
    // Round robin: a tenant just served goes to the back of the line.
    for (const { tenantId } of claimed) {
      const queue = this.pending.get(tenantId)!;
      this.pending.delete(tenantId);
      this.pending.set(tenantId, queue);
    }
    return Promise.resolve(claimed);
  }

  async extendLease(): Promise<void> {
    // One process holds a local store: its claims cannot be taken over.
  }

  /** Applied in memory at once, then made durable: a crash in between only resends (deduped) events. */
  async record(outcomes: readonly ClaimOutcome[]): Promise<readonly string[]> {
    const applied = outcomes.filter((outcome) => this.apply(outcome));
    // Every delivery of the group in one `remove`.
    const removed: string[] = [];
    const writes: Promise<void>[] = [];
    for (const outcome of applied) {
      if (outcome.kind === 'delivered') removed.push(outcome.eventId);
      else if (outcome.kind !== 'release') writes.push(this.store.update(outcome.eventId, outcome.patch));
    }
    if (removed.length > 0) writes.push(this.store.remove(removed));
    await Promise.all(writes);
    return applied.map((outcome) => outcome.eventId);
  }

  private apply(outcome: ClaimOutcome): boolean {
    const entry = this.entries.get(outcome.eventId);
    if (!entry) return false;
    this.setClaimed(entry, false);
    if (outcome.kind === 'delivered') this.forget(entry);
    else if (outcome.kind !== 'release') {
      if (outcome.kind === 'retry') {
        entry.dueAt = this.probeDue.get(entry.event.tenantId) ?? this.monotonic() + outcome.retryAfterMs;
        this.waiting.add(entry);
      }
      this.patchEntry(entry, outcome.patch);
    }
    return true;
  }

  async update(eventId: string, patch: EventPatch): Promise<void> {
    const entry = this.entries.get(eventId);
    if (!entry) return;
    this.patchEntry(entry, patch);
    if (patch.state === 'pending') entry.dueAt = 0;
    await this.store.update(eventId, patch);
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    for (const id of eventIds) {
      const entry = this.entries.get(id);
      if (entry) this.forget(entry);
    }
    await this.store.remove(eventIds);
  }

  async setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void> {
    if (stop) this.stops.set(tenantId, stop);
    else this.stops.delete(tenantId);
    await this.store.setTenantStop(tenantId, stop);
  }

  get(eventId: string): StoredEvent | undefined {
    return this.entries.get(eventId)?.event;
  }

  list(state: EventState, filter: { readonly tenantId?: string | undefined } = {}): StoredEvent[] {
    const wanted = (event: StoredEvent) =>
      event.state === state && (filter.tenantId === undefined || event.tenantId === filter.tenantId);
    return [...this.entries.values()]
      .map((entry) => entry.event)
      .filter(wanted)
      .sort((a, b) => a.seq - b.seq);
  }

  counts(): Record<EventState, number> {
    const counts: Record<EventState, number> = { pending: 0, parked: 0, dead: 0, expired: 0 };
    for (const { event } of this.entries.values()) counts[event.state] += 1;
    return counts;
  }

  /** Per tenant: its events by state, and its oldest pending one's enqueue time (the gauges). */
  async countsByTenant(): Promise<TenantCounts[]> {
    const byTenant = new Map<string, TenantCounts>();
    for (const { event } of this.entries.values()) {
      const { tenantId, state, enqueuedAt } = event;
      const counts = byTenant.get(tenantId) ?? { tenantId, states: {}, oldestPendingAt: null };
      byTenant.set(tenantId, counts);
      counts.states[state] = (counts.states[state] ?? 0) + 1;
      if (state === 'pending')
        counts.oldestPendingAt = Math.min(counts.oldestPendingAt ?? enqueuedAt, enqueuedAt);
    }
    return [...byTenant.values()];
  }

  /**
   * While a tenant's link is down every event of it is due at `at`, its next probe, whatever its
   * own wait (the link's, not the service's). `undefined`: each waits as its own outcome says.
   */
  dueAt(tenantId: string, at: number | undefined): void {
    if (at === undefined) {
      this.probeDue.delete(tenantId);
      return;
    }
    this.probeDue.set(tenantId, at);
    for (const entry of this.pending.get(tenantId) ?? []) {
      if (entry.claimed) continue;
      entry.dueAt = at;
      this.waiting.add(entry);
    }
  }

  /** Pending events of a tenant, in flight or not. */
  pendingOf(tenantId: string): number {
    return this.pending.get(tenantId)?.length ?? 0;
  }

  /** Milliseconds until the next retry wait of a pending event ends; none: undefined. */
  nextDueIn(skipTenants: ReadonlySet<string>, idle = false): number | undefined {
    const now = this.monotonic();
    const skipped = (tenantId: string) => skipTenants.has(tenantId) || this.stops.has(tenantId);
    let earliest = Number.POSITIVE_INFINITY;
    if (idle) {
      for (const [tenantId, queue] of this.pending) {
        if (skipped(tenantId)) continue;
        const earlier = new EarlierKeys();
        for (const entry of queue) {
          if (!entry.claimed && entry.dueAt > now) earliest = Math.min(earliest, entry.dueAt);
          // With nothing in flight, no answer will wake the scheduler: an event that became due,
          // unblocked, after the last claim looked must go now.
          else if (!entry.claimed && !earlier.holdBack(entry.keys)) return 0;
          earlier.add(entry.keys);
        }
      }
    } else {
      // While something is in flight only the retry waits matter: no pass over the backlog per answer.
      for (const entry of this.waiting) {
        // A wait that is over, or an entry gone from the queue, has nothing more to wake.
        if (!entry.queued || entry.dueAt <= now) this.waiting.delete(entry);
        else if (!entry.claimed && !skipped(entry.event.tenantId)) earliest = Math.min(earliest, entry.dueAt);
      }
    }
    return earliest === Number.POSITIVE_INFINITY ? undefined : earliest - now;
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private hold(event: StoredEvent): void {
    const dueAt = this.probeDue.get(event.tenantId) ?? 0;
    const entry: Entry = { event, keys: causalKeys(event.envelope), claimed: false, queued: false, dueAt };
    this.entries.set(event.eventId, entry);
    if (event.state === 'pending') this.insertPending(entry);
  }

  private patchEntry(entry: Entry, patch: EventPatch): void {
    const wasPending = entry.event.state === 'pending';
    entry.event = { ...entry.event, ...patch };
    const isPending = entry.event.state === 'pending';
    if (wasPending && !isPending) this.dropPending(entry);
    if (!wasPending && isPending) this.insertPending(entry);
  }

  private forget(entry: Entry): void {
    this.entries.delete(entry.event.eventId);
    this.dropPending(entry);
    this.waiting.delete(entry);
  }

  private setClaimed(entry: Entry, claimed: boolean): void {
    if (entry.claimed === claimed) return;
    entry.claimed = claimed;
    if (entry.queued) this.countClaimed(entry.event.tenantId, claimed ? 1 : -1);
  }

  private countClaimed(tenantId: string, by: number): void {
    this.claimedOf.set(tenantId, (this.claimedOf.get(tenantId) ?? 0) + by);
  }

  /** Inserts by `seq`: a redelivered event takes back its place ahead of younger ones. */
  private insertPending(entry: Entry): void {
    const queue = this.pending.get(entry.event.tenantId) ?? [];
    this.pending.set(entry.event.tenantId, queue);
    let i = queue.length;
    while (i > 0 && queue[i - 1]!.event.seq > entry.event.seq) i -= 1;
    queue.splice(i, 0, entry);
    entry.queued = true;
    if (entry.claimed) this.countClaimed(entry.event.tenantId, 1);
  }

  private dropPending(entry: Entry): void {
    if (!entry.queued) return;
    const queue = this.pending.get(entry.event.tenantId);
    const i = queue?.indexOf(entry) ?? -1;
    if (i >= 0) queue!.splice(i, 1);
    entry.queued = false;
    if (entry.claimed) this.countClaimed(entry.event.tenantId, -1);
  }
}
