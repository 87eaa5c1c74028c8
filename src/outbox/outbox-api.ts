import type { EnvelopeOptions, InboundEventType, PayloadInput } from '../contract/index.js';
import type { OutboxSender } from './outbox-options.js';
import type { EventState, StoredEvent } from './store.js';
import type { TenantStatus } from './tenant-state.js';

/**
 * Options of `enqueue`: the envelope's (`eventId`, `occurredAt`, ...), the tenant's, and with a
 * shared store (`postgresStore`) the caller's transaction.
 *
 * @example
 * ```ts
 * import type { EnqueueOptions } from 'loyalty-partner-sdk/outbox';
 * const options: EnqueueOptions = { tenantId: 'store-42' };
 * ```
 */
export interface EnqueueOptions<Tx = never> extends EnvelopeOptions {
  /** Whose event it is. Required with `clientFor`; with `client` it defaults to `defaultTenantId`. */
  tenantId?: string;
  /**
   * The caller's open transaction (a `pg` PoolClient inside BEGIN, a postgres.js transaction
   * `sql`): the event commits or rolls back with it. A shared store's only (else path `tx`).
   */
  tx?: Tx;
}

/**
 * A picture of the outbox for monitoring.
 *
 * @example
 * ```ts
 * import type { OutboxStats } from 'loyalty-partner-sdk/outbox';
 * const needsAPerson = (stats: OutboxStats) => stats.parked + stats.dead + stats.expired > 0;
 * ```
 */
export interface OutboxStats {
  /** Waiting for delivery, in flight included (a shared store: every process's). */
  readonly pending: number;
  /** Being sent right now by this process. */
  readonly inFlight: number;
  readonly parked: number;
  readonly dead: number;
  readonly expired: number;
  /** Delivered by this process since `start()` (delivered events leave the store). */
  readonly delivered: number;
  /** Every tenant this process has seen, by id. */
  readonly tenants: readonly TenantStatus[];
}

/** `'single'` (one `client`: `tenantId` optional) or `'multi'` (`clientFor`: `tenantId` required). */
export type Tenancy = 'single' | 'multi';

/** The options argument of `enqueue`: required exactly when the outbox has `clientFor`. */
export type EnqueueArgs<Tx, T extends Tenancy> = T extends 'multi'
  ? [options: EnqueueOptions<Tx> & { tenantId: string }]
  : [options?: EnqueueOptions<Tx>];

/**
 * What every outbox does, whatever its store.
 *
 * @example
 * ```ts
 * import type { OutboxControl } from 'loyalty-partner-sdk/outbox';
 * async function shutDown(outbox: OutboxControl) {
 *   await outbox.flush();
 *   await outbox.close({ deadlineMs: 2_000 });
 * }
 * ```
 */
export interface OutboxControl<Tx = never, T extends Tenancy = 'single'> {
  /** Opens the store (recovering what a previous run left) and starts delivering. Idempotent. */
  start(): Promise<void>;
  /**
   * Validates like `client.send`, builds the envelope (its `eventId` fixed from now on) and
   * resolves once the event is durable (fsynced, or written with `tx`); an `eventId` held already
   * is stored once. Rejects with `OutboxFullError` when full, `OutboxClosedError` after `close()`.
   */
  enqueue<E extends InboundEventType>(
    eventType: E,
    payload: PayloadInput<E>,
    ...options: EnqueueArgs<Tx, T>
  ): Promise<{ eventId: string }>;
  /**
   * Resolves when nothing is deliverable right now: each pending event waits for a retry, for an
   * earlier event, or belongs to a paused or stopped tenant (offline: after one round of attempts).
   */
  flush(): Promise<unknown>;
  /**
   * Takes no new events, lets sends in flight finish until `deadlineMs` (default 5000), then aborts
   * them (their events stay pending for the next `start()`), and closes the store. Idempotent.
   */
  close(options?: { deadlineMs?: number }): Promise<void>;
  /**
   * Puts a parked, dead or expired event back in its place in the queue. An expired one needs
   * `acceptDuplicateRisk: true` (else `OutboxDuplicateRiskError`): it could be credited twice.
   */
  redeliver(eventId: string, options?: { acceptDuplicateRisk?: boolean }): Promise<void>;
  /** Forgets an event for good, in any state but in flight. */
  discard(eventId: string): Promise<void>;
  /** Delivers a paused or stopped tenant's events again (`client`: fresh credentials after Disconnected). */
  resumeTenant(tenantId: string, options?: { client?: OutboxSender }): Promise<void>;
  /** Stops a tenant's deliveries until `resumeTenant`, across restarts; its events stay queued. */
  stopTenant(tenantId: string, reason: string): Promise<void>;
}

/**
 * The durable queue `createOutbox` returns for a local store (`fileStore`, `memoryStore`).
 *
 * @example
 * ```ts
 * import type { Outbox } from 'loyalty-partner-sdk/outbox';
 * async function shutDown(outbox: Outbox) {
 *   await outbox.flush();
 *   await outbox.close({ deadlineMs: 2_000 });
 * }
 * ```
 */
export interface Outbox<T extends Tenancy = 'single'> extends OutboxControl<never, T> {
  flush(): Promise<OutboxStats>;
  /** The events in one state, oldest first, optionally of one tenant. */
  list(state: EventState, filter?: { tenantId?: string }): StoredEvent[];
  /** One event the outbox holds, in any state; `undefined` once delivered or discarded. */
  get(eventId: string): StoredEvent | undefined;
  stats(): OutboxStats;
}

/**
 * The queue `createOutbox` returns for a shared store (`postgresStore`): reads are asynchronous.
 *
 * @example
 * ```ts
 * import type { SharedOutbox } from 'loyalty-partner-sdk/outbox';
 * const parkedCount = async (outbox: SharedOutbox<unknown>) => (await outbox.list('parked')).length;
 * ```
 */
export interface SharedOutbox<Tx, T extends Tenancy = 'single'> extends OutboxControl<Tx, T> {
  flush(): Promise<OutboxStats>;
  /** The events in one state, oldest first, optionally of one tenant (at most 1000). */
  list(state: EventState, filter?: { tenantId?: string }): Promise<StoredEvent[]>;
  get(eventId: string): Promise<StoredEvent | undefined>;
  stats(): Promise<OutboxStats>;
}
