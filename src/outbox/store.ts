import type { InboundEnvelope } from '../contract/index.js';
import type { CausalKeys } from './causal-keys.js';

export type { CausalKeys } from './causal-keys.js';

/**
 * Where an event stands while the outbox holds it. Delivered and discarded events leave the store.
 *
 * - `pending`: waiting for (or between) delivery attempts.
 * - `parked`: the service answered a state-dependent 400 (catalogue action `fix-setup`); kept
 *   aside with its code until `redeliver(eventId)` after the merchant fixes the setup.
 * - `dead`: the event itself is defective (`fix-payload`, `stop`); kept with its code until
 *   `discard(eventId)`.
 * - `expired`: a retry would fall outside the service's 24-hour dedup window; waits for
 *   `redeliver(eventId, { acceptDuplicateRisk: true })` or `discard(eventId)`.
 */
export type EventState = 'pending' | 'parked' | 'dead' | 'expired';

/** The service's (or the SDK's) last refusal of an event. */
export interface EventFailure {
  readonly code: string;
  readonly message: string;
  /** HTTP status of the answer; absent when no answer came (network) or the SDK refused. */
  readonly status?: number | undefined;
}

/**
 * One event as a store keeps it (and as `outbox.list` and the hooks show it). Plain JSON, so any
 * store can serialise it as it likes.
 *
 * @example
 * ```ts
 * import type { StoredEvent } from 'loyalty-partner-sdk/outbox';
 * const describe = (event: StoredEvent) => `${event.envelope.eventType} ${event.eventId}: ${event.state}`;
 * ```
 */
export interface StoredEvent {
  readonly eventId: string;
  readonly tenantId: string;
  /** The envelope exactly as built at `enqueue`: every attempt sends these fields. */
  readonly envelope: InboundEnvelope;
  /**
   * Enqueue order; causal order follows it. A local store keeps the outbox's number; a shared
   * store assigns its own increasing number at `append` and ignores the one it is given.
   */
  readonly seq: number;
  /** Unix milliseconds of the durable enqueue. */
  readonly enqueuedAt: number;
  readonly state: EventState;
  /** HTTP attempts made so far, across restarts. */
  readonly attempts: number;
  /**
   * Unix milliseconds of the first attempt whose fate the service may still remember (its dedup
   * window is 24 hours); `null` before the first attempt or after an answer proved no credit.
   */
  readonly firstAttemptAt: number | null;
  readonly lastError: EventFailure | null;
  /**
   * The W3C `traceparent` of the event's `create` span, when tracing was on at `enqueue`: every
   * later `send` span links to it, after a restart too. Absent otherwise; a store keeps it as it
   * keeps the rest (plain JSON).
   */
  readonly traceparent?: string;
}

/** The fields of a stored event that change after `enqueue`. */
export type EventPatch = Partial<Pick<StoredEvent, 'state' | 'attempts' | 'firstAttemptAt' | 'lastError'>>;

/** Why a tenant's queue does not send, as far as it must survive a restart. */
export interface StoredTenantStop {
  readonly tenantId: string;
  /** `Disabled`, `Disconnected` (from IntegrationStatusChanged) or an error code. */
  readonly reason: string;
  readonly since: number;
  /**
   * Not a stop but a wait the service asked for (a pause, a `Retry-After`): Unix milliseconds
   * when it is over. Local stores only; a restarted outbox sends nothing of the tenant before.
   */
  readonly until?: number;
  /** The wait is a pause (INTEGRATION_PAUSED, SUBSCRIPTION_LAPSED, ...): probe at `until`. */
  readonly paused?: boolean;
}

/** What a store holds when it is opened. */
export interface StoreSnapshot {
  /** Every live event, in `seq` order. */
  readonly events: readonly StoredEvent[];
  readonly stoppedTenants: readonly StoredTenantStop[];
}

/**
 * A store whose events belong to this process alone: `fileStore` and `memoryStore`. The outbox
 * loads everything at `start()`, keeps it in memory and schedules it itself; the store only
 * makes each change durable. Every returned promise resolves once the change is durable (the
 * file store groups concurrent changes into one write and one fsync). Another store of this kind
 * (SQLite, IndexedDB) keeps the same promises.
 *
 * @example
 * ```ts
 * import { memoryStore, type LocalStore } from 'loyalty-partner-sdk/outbox';
 * const store: LocalStore = memoryStore();
 * ```
 */
export interface LocalStore {
  readonly kind: 'local';
  /** Loads (and recovers) what a previous run left. Called once, by `outbox.start()`. */
  open(): Promise<StoreSnapshot>;
  /** Stores a new event. Rejects with `OutboxFullError` when a limit would be exceeded. */
  append(event: StoredEvent): Promise<void>;
  /** Records a state change of a stored event (never refused for lack of space). */
  update(eventId: string, patch: EventPatch): Promise<void>;
  /**
   * Forgets events: delivered or discarded. Concurrent calls may share one durable write (the file
   * store groups them: one write and one fsync for many acknowledgements).
   */
  remove(eventIds: readonly string[]): Promise<void>;
  /** Records that a tenant is stopped (`stop`) or no longer (`null`). */
  setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void>;
  /** Makes everything durable and releases the store (the file store's lock). */
  close(): Promise<void>;
}

/** What `SharedStore.claim` is asked for. */
export interface ClaimRequest {
  /** Most events to return in this call. */
  readonly limit: number;
  /**
   * Per tenant and per outbox instance (a process; a deployment that adds processes adds sending
   * capacity): return at most `maxInFlight - inFlight[tenant]` events of a tenant. Claims of
   * other processes do not count; N processes send up to N x `maxInFlight` of a tenant at once.
   */
  readonly maxInFlight: number;
  /**
   * Events of each tenant this outbox is sending now (absent tenants: none). A store that keeps
   * its own claims in memory (`LocalQueue`) may count them itself.
   */
  readonly inFlight?: Readonly<Record<string, number>> | undefined;
  /** The lease of each claimed event: `claimedUntil = now + leaseMs` (the database's clock). */
  readonly leaseMs: number;
  /** Claim only events of these tenants (a paused tenant's probe); absent: every tenant. */
  readonly onlyTenants?: readonly string[] | undefined;
  /** Claim no event of these tenants (paused in this process; it probes them itself). */
  readonly skipTenants: readonly string[];
}

/**
 * How one claimed attempt ended, recorded by `SharedStore.record`. Every kind ends the claim (the
 * lease is cleared); every kind but `delivered` keeps the event.
 *
 * - `delivered`: the service credited the event (or had already): delete the row.
 * - `retry`: apply `patch` (state stays `pending`); the event is due again `retryAfterMs` from
 *   now (the database's clock: a relative delay, so clocks of processes do not matter).
 * - `settle`: apply `patch`, whose `state` is `parked`, `dead` or `expired`: answered for the last
 *   time; it no longer holds back later events.
 * - `release`: the attempt was aborted (`close()`); nothing else changes, due now.
 */
export type ClaimOutcome =
  | { readonly kind: 'delivered'; readonly eventId: string }
  | {
      readonly kind: 'retry';
      readonly eventId: string;
      readonly patch: EventPatch;
      readonly retryAfterMs: number;
    }
  | { readonly kind: 'settle'; readonly eventId: string; readonly patch: EventPatch }
  | { readonly kind: 'release'; readonly eventId: string };

/**
 * A store many processes share (`postgresStore`): rows live in the database, and each process's
 * outbox asks the store for work instead of holding it. The outbox's scheduler (per-tenant
 * in-flight limit, verdicts, tenant stops, backoff, expiry) is the same code as for a local
 * store; this interface is the part that must hold across processes.
 *
 * `Tx` is the caller's transaction handle (a `pg` PoolClient inside BEGIN, a postgres.js
 * transaction `sql`): `outbox.enqueue(type, payload, { tx })` writes the event with it, so the
 * event commits or rolls back with the caller's own writes.
 *
 * Rules every method keeps:
 * - **Causal readiness.** `claim` returns a `pending` event only when no *earlier* event of the
 *   same tenant (lower `seq`) is still `pending` (claimed or not, due or not) and conflicts with
 *   it: `earlier.changes && (later.changes || later.needs)` or `earlier.needs && later.changes`
 *   (array overlap of the keys given at `append`). Parked, dead and expired events hold nothing
 *   back. The scheduler therefore never sends an event before the last attempt of one it follows.
 * - **Leases.** A claim lasts `leaseMs`; the outbox renews leases of events it still sends
 *   (`extendLease`). A claim whose lease ran out (its process died) is claimable again, and
 *   counts no longer against `maxInFlight`.
 * - **Stops.** A tenant with a stop recorded (`setTenantStop`) has none of its events claimed, by
 *   any process, until the stop is cleared.
 * - Returned promises resolve once the change is committed; errors reject (the outbox retries).
 *
 * @example
 * ```ts
 * import type { SharedStore } from 'loyalty-partner-sdk/outbox';
 * const claimsOnly = (store: SharedStore<unknown>) => store.kind === 'shared';
 * ```
 */
export interface SharedStore<Tx> {
  readonly kind: 'shared';
  /** Checks the store is usable (schema migrated); returns the tenants stopped now. */
  open(): Promise<{ readonly stoppedTenants: readonly StoredTenantStop[] }>;
  /**
   * Inserts a `pending` event with its causal keys (see `causalKeys`), with `tx` when given
   * (visible to claims only once the caller commits). The store assigns `seq` in increasing
   * order. An `eventId` already stored is left as it is (no error). Rejects with
   * `OutboxFullError` when the store has a limit and it would be passed.
   */
  append(
    event: StoredEvent,
    options: { readonly keys: CausalKeys; readonly tx?: Tx | undefined },
  ): Promise<void>;
  /**
   * Claims up to `request.limit` due, causally ready, unclaimed `pending` events (`FOR UPDATE SKIP LOCKED`),
   * oldest `seq` first, at most `maxInFlight - inFlight[tenant]` of each tenant, and returns them
   * as stored. Due: never tried, or the `retryAfterMs` of its last `retry` outcome has passed.
   */
  claim(request: ClaimRequest): Promise<StoredEvent[]>;
  /**
   * Optional: `record(outcomes)`, then `claim(request)`, in one write. Outcomes mostly land just
   * before a claim (an answer frees a slot, and the slot is claimed for again): carried together,
   * they cost one statement and one commit instead of two, and the claim sees them (an event they
   * held back can be claimed at once). When it rejects, none of the outcomes was recorded.
   * Without it the outbox records outcomes on their own.
   */
  recordAndClaim?(
    outcomes: readonly ClaimOutcome[],
    request: ClaimRequest,
  ): Promise<{ readonly recorded: readonly string[]; readonly claimed: StoredEvent[] }>;
  /**
   * Pushes the lease of events this process still sends to `now + leaseMs`. A store that can tell
   * resolves with the ids whose claim is still this process's (`postgresStore` does): one another
   * process took over after the lease ran out is not among them, and must not be sent again.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: stores that cannot tell resolve with nothing (Promise<void>)
  extendLease(eventIds: readonly string[], leaseMs: number): Promise<readonly string[] | void>;
  /**
   * Records outcomes of attempts, each only while this store still holds the event's claim (the
   * same owner the claim wrote): a claim another process took over after the lease ran out is
   * left to that process, which may have its own copy in flight. Resolves with the ids of the
   * outcomes it recorded; the outbox reports (hooks, counts) only those.
   */
  record(outcomes: readonly ClaimOutcome[]): Promise<readonly string[]>;
  /**
   * Changes an event outside an attempt's end: `firstAttemptAt` before the first attempt (the
   * claim stays), or an operator's `redeliver` (back to `pending`, due now). Unknown ids: no-op.
   */
  update(eventId: string, patch: EventPatch): Promise<void>;
  /** Deletes events (the operator's `discard`). */
  remove(eventIds: readonly string[]): Promise<void>;
  /** Records that a tenant is stopped (`stop`) or no longer (`null`); seen by every process. */
  setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void>;
  /** One event in any state; `undefined` when it is not stored. */
  get(eventId: string): Promise<StoredEvent | undefined>;
  /** Events in one state, by `seq`, optionally of one tenant, at most `limit` (default 1000). */
  list(
    state: EventState,
    filter?: { readonly tenantId?: string | undefined; readonly limit?: number | undefined },
  ): Promise<StoredEvent[]>;
  /** Events per state, every tenant, every process. */
  counts(): Promise<Readonly<Record<EventState, number>>>;
  /**
   * Per tenant holding events: its events per state and the enqueue time (Unix ms) of its oldest
   * pending one, every process. The outbox's gauges read it at each metrics collection (one
   * query). Optional: without it the gauges stay empty.
   */
  countsByTenant?(): Promise<
    readonly {
      readonly tenantId: string;
      readonly states: Readonly<Partial<Record<EventState, number>>>;
      readonly oldestPendingAt: number | null;
    }[]
  >;
  /**
   * Calls `wake` when another process may have committed events this one can claim (a Postgres
   * `LISTEN`); resolves once listening, with what stops it. Optional: without it the outbox
   * finds such events at its next poll (`pollIntervalMs`).
   */
  watch?(wake: () => void): Promise<() => Promise<void>>;
  /** Releases this process's resources. The user's own pool or client is not closed. */
  close(): Promise<void>;
}

/**
 * What `createOutbox({ store })` accepts: a local store (file, memory) or a shared one
 * (Postgres). `Tx` is the transaction handle a shared store accepts in `enqueue`.
 *
 * @example
 * ```ts
 * import { fileStore, type OutboxStore } from 'loyalty-partner-sdk/outbox';
 * const store: OutboxStore = fileStore('/var/lib/pos/loyalty-outbox');
 * ```
 */
export type OutboxStore<Tx = never> = LocalStore | SharedStore<Tx>;
