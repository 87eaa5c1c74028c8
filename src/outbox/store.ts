import type { InboundEnvelope } from '../contract/index.js';

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
  /** Global enqueue order; FIFO per tenant follows it. */
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
}

/** The fields of a stored event that change after `enqueue`. */
export type EventPatch = Partial<Pick<StoredEvent, 'state' | 'attempts' | 'firstAttemptAt' | 'lastError'>>;

/** Why a tenant's queue does not send, as far as it must survive a restart. */
export interface StoredTenantStop {
  readonly tenantId: string;
  /** `Disabled`, `Disconnected` (from IntegrationStatusChanged) or an error code. */
  readonly reason: string;
  readonly since: number;
}

/** What a store holds when it is opened. */
export interface StoreSnapshot {
  /** Every live event, in `seq` order. */
  readonly events: readonly StoredEvent[];
  readonly stoppedTenants: readonly StoredTenantStop[];
}

/** Counters a store exposes for monitoring, tests and benchmarks. */
export interface StoreStats {
  readonly events: number;
  /** Bytes of the live events as the store accounts them against `maxBytes`. */
  readonly bytes: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
  /** Durable flushes (one write + one fsync for a whole group of records in the file store). */
  readonly flushes: number;
  /** Records written, summed over all flushes. */
  readonly records: number;
  readonly compactions: number;
  /** Bytes of a torn last record dropped when the journal was opened. */
  readonly recoveredBytes: number;
}

/**
 * The persistence the outbox needs. `fileStore` and `memoryStore` implement it; another store
 * (SQLite, IndexedDB) only has to keep the same promises: every returned promise resolves once
 * the change is durable, and `append` refuses with `OutboxFullError` rather than dropping.
 *
 * @example
 * ```ts
 * import { memoryStore, type OutboxStore } from 'loyalty-partner-sdk/outbox';
 * const store: OutboxStore = memoryStore();
 * ```
 */
export interface OutboxStore {
  /** Loads (and recovers, and compacts) what a previous run left. Called once, by `outbox.start()`. */
  open(): Promise<StoreSnapshot>;
  /** Stores a new event. Rejects with `OutboxFullError` when a limit would be exceeded. */
  append(event: StoredEvent): Promise<void>;
  /** Records a state change of a stored event (never refused for lack of space). */
  update(eventId: string, patch: EventPatch): Promise<void>;
  /** Forgets an event: delivered or discarded. */
  remove(eventId: string): Promise<void>;
  /** Records that a tenant is stopped (`stop`) or no longer (`null`). */
  setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void>;
  stats(): StoreStats;
  /** Makes everything durable and releases the store (the file store's lock). */
  close(): Promise<void>;
}
