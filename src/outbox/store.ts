import type { InboundEnvelope } from '../contract/index.js';
import type { CausalKeys } from './causal-keys.js';

export type { CausalKeys } from './causal-keys.js';

/**
 * Where an event stands while the outbox holds it (delivered and discarded events leave it):
 * `pending` (waiting for an attempt), `parked` (a `fix-setup` 400: waits for `redeliver`), `dead`
 * (a defective event: waits for `discard`), `expired` (a retry could fall outside the 24-hour
 * dedup window: `redeliver(id, { acceptDuplicateRisk: true })` or `discard`).
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
 * One event as a store keeps it (and as `outbox.list` and the hooks show it), plain JSON.
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
  /** Enqueue order, which causal order follows (a shared store assigns its own at `append`). */
  readonly seq: number;
  /** Unix milliseconds of the durable enqueue. */
  readonly enqueuedAt: number;
  readonly state: EventState;
  /** HTTP attempts made so far, across restarts. */
  readonly attempts: number;
  /**
   * Unix ms of the first attempt the service may remember (24-hour dedup); `null` before the first
   * attempt or after an answer proved no credit.
   */
  readonly firstAttemptAt: number | null;
  readonly lastError: EventFailure | null;
  /** The `traceparent` of its `create` span (tracing on at `enqueue`): each `send` span links it. */
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
  /** Not a stop but a wait the service asked for (a pause, a `Retry-After`) until then (local stores). */
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
 * A store whose events belong to this process alone (`fileStore`, `memoryStore`): the outbox
 * loads everything at `start()` and schedules it itself; the store makes each change durable
 * before its promise resolves (the file store groups concurrent changes into one fsync).
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
  /** Forgets events: delivered or discarded. */
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
  /** At most `maxInFlight - inFlight[tenant]` events of a tenant (per outbox, not per fleet). */
  readonly maxInFlight: number;
  /** Events of each tenant this outbox is sending now (absent tenants: none). */
  readonly inFlight?: Readonly<Record<string, number>> | undefined;
  /** The lease of each claimed event: `claimedUntil = now + leaseMs` (the database's clock). */
  readonly leaseMs: number;
  /** Claim only events of these tenants (a paused tenant's probe); absent: every tenant. */
  readonly onlyTenants?: readonly string[] | undefined;
  /** Claim no event of these tenants (paused in this process; it probes them itself). */
  readonly skipTenants: readonly string[];
}

/**
 * How one claimed attempt ended (`SharedStore.record`); each kind ends the claim. `delivered`:
 * credited, the event leaves; `retry`: apply `patch`, due again `retryAfterMs` from now (the
 * store's clock); `settle`: apply `patch` (parked, dead or expired: it holds nothing back);
 * `release`: aborted (`close()`), due now, nothing else changes.
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
 * A store many processes share (`postgresStore`): each process's outbox asks it for work; the
 * scheduler is the same as for a local store. `Tx` is the caller's transaction handle (a `pg`
 * PoolClient inside BEGIN, a postgres.js transaction `sql`) that `enqueue(..., { tx })` writes with.
 *
 * Rules every method keeps:
 * - **Causal readiness.** `claim` returns a `pending` event only when no earlier `pending` event of
 *   its tenant (claimed or not, due or not) conflicts with it: `earlier.changes` overlaps
 *   `later.changes` or `later.needs`, or `earlier.needs` overlaps `later.changes` (the keys given
 *   at `append`). Parked, dead and expired events hold nothing back.
 * - **Leases.** A claim lasts `leaseMs`, renewed by `extendLease` while sent; once it ran out the
 *   event is claimable again and counts no longer against `maxInFlight`.
 * - **Stops.** No event of a stopped tenant (`setTenantStop`) is claimed, by any process.
 * - Promises resolve once the change is committed; errors reject (the outbox retries).
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
   * Inserts a `pending` event with its causal keys, with `tx` when given, assigning an increasing
   * `seq`; an `eventId` already stored is left as it is. `OutboxFullError` past a store's limit.
   * `freshEventId`: the enqueue made the `eventId` (the caller gave none), so no stored event can
   * hold it and a store may skip looking for one.
   */
  append(
    event: StoredEvent,
    options: { readonly keys: CausalKeys; readonly tx?: Tx | undefined; readonly freshEventId?: boolean },
  ): Promise<void>;
  /** Claims up to `request.limit` due, causally ready, unclaimed `pending` events, oldest first. */
  claim(request: ClaimRequest): Promise<StoredEvent[]>;
  /**
   * Optional: `record(outcomes)`, then `claim(request)`, in one write that costs one statement
   * instead of two (an answer frees a slot that is claimed for again). A rejection: none recorded.
   */
  recordAndClaim?(
    outcomes: readonly ClaimOutcome[],
    request: ClaimRequest,
  ): Promise<{ readonly recorded: readonly string[]; readonly claimed: StoredEvent[] }>;
  /**
   * Pushes the leases of events this process sends to `now + leaseMs`. A store that can tell
   * resolves with the ids still this process's: the outbox sends none of the others.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: stores that cannot tell resolve with nothing (Promise<void>)
  extendLease(eventIds: readonly string[], leaseMs: number): Promise<readonly string[] | void>;
  /**
   * Records outcomes, each only while this store still holds the event's claim (one taken over is
   * left to its new holder); resolves with the ids recorded, the only ones the outbox reports.
   */
  record(outcomes: readonly ClaimOutcome[]): Promise<readonly string[]>;
  /** `firstAttemptAt` before a first attempt (the claim stays), or `redeliver` (pending, due now). */
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
  /** Optional, for the gauges: per tenant, its events per state and its oldest pending one's enqueue time. */
  countsByTenant?(): Promise<
    readonly {
      readonly tenantId: string;
      readonly states: Readonly<Partial<Record<EventState, number>>>;
      readonly oldestPendingAt: number | null;
    }[]
  >;
  /**
   * Optional: calls `wake` when another process may have committed events to claim (`LISTEN`);
   * resolves once listening, with what stops it. Without it the next poll finds them.
   */
  watch?(wake: () => void): Promise<() => Promise<void>>;
  /** Releases this process's resources. The user's own pool or client is not closed. */
  close(): Promise<void>;
}

/** What the scheduler and the operator's actions use of a store: a shared one, or the `LocalQueue`. */
export type ClaimSource = Omit<SharedStore<unknown>, 'get' | 'list' | 'counts'>;

/**
 * What `createOutbox({ store })` accepts: a local store (file, memory) or a shared one (Postgres).
 *
 * @example
 * ```ts
 * import { fileStore, type OutboxStore } from 'loyalty-partner-sdk/outbox';
 * const store: OutboxStore = fileStore('/var/lib/pos/loyalty-outbox');
 * ```
 */
export type OutboxStore<Tx = never> = LocalStore | SharedStore<Tx>;
