/**
 * Which event a claim is about. The `eventId` alone is the key (a GUIDv7, unique per event: the
 * contract's dedup key); the tenant travels with it for stores that record it, but a delivery
 * replayed under another `X-TenantId` is the same event, never a new one.
 *
 * @example
 * ```ts
 * import type { InboxKey } from 'loyalty-partner-sdk/webhooks';
 * const rowId = (key: InboxKey) => key.eventId;
 * ```
 */
export interface InboxKey {
  /** The envelope's `eventId`: THE key (a redelivery carries the same value). */
  readonly eventId: string;
  /** The envelope's `eventType`, for stores that keep it beside the claim. Not part of the key. */
  readonly eventType: string;
  /** The delivery's `X-TenantId` (`''` when none), informational only. Not part of the key. */
  readonly tenantId: string;
}

/**
 * What `begin` found: `new` (claimed now: run the handler), `done` (handled before: answer 200
 * without running it) or `in-progress` (another delivery holds the claim: answer 503). Not
 * exported: a store typed as `InboxStore` gets it by contextual typing.
 */
export type InboxClaim = 'new' | 'done' | 'in-progress';

/**
 * Where a receiver records which events it has handled, so the handler runs once per `eventId`
 * even though the service redelivers on every 5xx and timeout. Every method may return a promise.
 * The default is `memoryInbox()`; use a database for several processes.
 *
 * A transactional store (`Tx` is its transaction type) also has `transaction`: the receiver then
 * runs the handler inside the store's transaction, which records the event as done in the same
 * commit, and hands the transaction to the handler as `ctx.tx`.
 *
 * @example
 * ```ts
 * import type { InboxStore } from 'loyalty-partner-sdk/webhooks';
 *
 * // A single-process store without a lease or expiry, to show the three steps.
 * const state = new Map<string, 'in-progress' | 'done'>();
 * export const naiveInbox: InboxStore = {
 *   begin(key) {
 *     const found = state.get(key.eventId);
 *     if (found) return found;
 *     state.set(key.eventId, 'in-progress');
 *     return 'new';
 *   },
 *   complete(key) { state.set(key.eventId, 'done'); },
 *   release(key) { state.delete(key.eventId); },
 * };
 * ```
 */
export interface InboxStore<Tx = undefined> {
  /**
   * Claims the event atomically for the store's lease (`leaseMs`): of concurrent calls for one
   * `eventId` exactly one sees `new`; a claim older than the lease (its process died, or its
   * handler never settled) is taken over (`new` again).
   */
  begin(key: InboxKey): InboxClaim | Promise<InboxClaim>;
  /** The handler finished: later deliveries of this key are duplicates (`done`). */
  complete(key: InboxKey): void | Promise<void>;
  /** The handler failed: drop the claim so that the redelivery runs the handler again. */
  release(key: InboxKey): void | Promise<void>;
  /**
   * Present on transactional stores only. Claims the key and runs `work(tx)` inside ONE
   * transaction that also marks the event done: resolves `new` once `work` ran and everything
   * committed; resolves `done` or `in-progress` without running `work`; rejects with `work`'s
   * own error after rolling back (no claim is left), or with a store error.
   */
  transaction?(key: InboxKey, work: (tx: Tx) => Promise<void>): Promise<InboxClaim>;
  /**
   * Present on stores with a lease: renews this process's claim of `key` for another `leaseMs`
   * while its handler still runs (the receiver calls it every third of the lease), so a slow
   * handler's claim is never taken over by a redelivery while its process lives. Resolves false
   * when the claim is no longer this process's.
   */
  extend?(key: InboxKey): boolean | Promise<boolean>;
  /**
   * How long a claim holds, in milliseconds, when the store has a lease: `createReceiver` checks
   * that its `handlerTimeoutMs` is shorter, so a handler that timed out keeps its claim until
   * the answer is sent and a redelivery after the lease takes over.
   */
  readonly leaseMs?: number | undefined;
}

/** Checks the shape of a user-supplied store once, when the receiver is created. */
export function isInboxStore(value: unknown): value is InboxStore<unknown> {
  const store = value as Partial<Record<keyof InboxStore, unknown>> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.begin === 'function' &&
    typeof store.complete === 'function' &&
    typeof store.release === 'function' &&
    (store.transaction === undefined || typeof store.transaction === 'function') &&
    (store.extend === undefined || typeof store.extend === 'function')
  );
}

/**
 * Where a stored delivery stands in a deferred inbox: `pending` (waiting for its first run or
 * between retries), `handled`, `dead` (its handler failed on every attempt) or `parked` (this
 * version of the receiver cannot handle it: a `schemaVersion` other than 1, an event type it
 * does not know, a type without a handler and no `onUnhandled`). `dead` and `parked` deliveries
 * are kept until `replay` or `discard`.
 *
 * @example
 * ```ts
 * import type { DeliveryState } from 'loyalty-partner-sdk/webhooks';
 * const needsAnOperator = (state: DeliveryState) => state === 'dead' || state === 'parked';
 * ```
 */
export type DeliveryState = 'pending' | 'handled' | 'dead' | 'parked';

/** Every state, in the order `stats()` and the CLI list them. */
export const DELIVERY_STATES: readonly DeliveryState[] = ['pending', 'handled', 'dead', 'parked'];

/**
 * A verified delivery as a deferred inbox stores it: what the receiver needs to run its handler
 * later, in any process, without the HTTP request. The signature was checked before it was
 * stored, so the body is not verified again.
 *
 * @example
 * ```ts
 * import type { StoredDelivery } from 'loyalty-partner-sdk/webhooks';
 * const size = (delivery: StoredDelivery) => delivery.rawBody.length;
 * ```
 */
export interface StoredDelivery {
  /** The envelope's `eventId`: the key, as for {@link InboxKey}. */
  readonly eventId: string;
  readonly eventType: string;
  /** The delivery's `X-TenantId` (`''` when none). */
  readonly tenantId: string;
  /** The body exactly as received, as UTF-8 text (the envelope is JSON). */
  readonly rawBody: string;
  /** The delivery's `X-Correlation-Id` (or the id generated for it). */
  readonly correlationId: string;
  /** The authenticated `t` of `X-Signature`, unix seconds. */
  readonly signatureTimestamp: number;
  /** Which of the tenant's secrets matched. */
  readonly secretIndex: number;
  /** When the first copy was received, in epoch milliseconds. */
  readonly receivedAt: number;
}

/**
 * A stored delivery claimed by one process to run its handler: held by `owner` until the lease
 * ends (extended by `extendLease` while the handler runs).
 *
 * @example
 * ```ts
 * import type { ClaimedDelivery } from 'loyalty-partner-sdk/webhooks';
 * const isRetry = (claim: ClaimedDelivery) => claim.attempt > 1;
 * ```
 */
export interface ClaimedDelivery extends StoredDelivery {
  /** The claimant: one value per running receiver (`claimDue`'s `owner`). */
  readonly owner: string;
  /** Which run this is, counting from 1 (a claim taken over after a crash counts too). */
  readonly attempt: number;
}

/**
 * One line of `receiver.list()` and of the CLI's `inbox list`: a stored delivery without its body.
 *
 * @example
 * ```ts
 * import type { DeliveryRecord } from 'loyalty-partner-sdk/webhooks';
 * const line = (r: DeliveryRecord) => `${r.eventId} ${r.state} ${r.attempts} ${r.lastError ?? ''}`;
 * ```
 */
export interface DeliveryRecord {
  readonly eventId: string;
  readonly eventType: string;
  readonly tenantId: string;
  readonly state: DeliveryState;
  /** Runs started so far. */
  readonly attempts: number;
  /** The last failure's message (`dead`, a `pending` retry) or why it was `parked`. */
  readonly lastError?: string | undefined;
  readonly receivedAt: Date;
  /** When a `pending` delivery is due next. */
  readonly nextAttemptAt?: Date | undefined;
  /** When it became `handled`, `dead` or `parked`. */
  readonly settledAt?: Date | undefined;
}

/**
 * What `list` selects: one state, optionally one tenant; oldest received first.
 *
 * @example
 * ```ts
 * import type { DeliveryQuery } from 'loyalty-partner-sdk/webhooks';
 * const deadOfOneShop: DeliveryQuery = { state: 'dead', tenantId: 'merchant-1', limit: 50 };
 * ```
 */
export interface DeliveryQuery {
  state: DeliveryState;
  tenantId?: string | undefined;
  /** @default 100 */
  limit?: number | undefined;
}

/**
 * A failed run: how long until it runs again, or `dead` when `retryInMs` is absent. The store
 * adds the wait to its own clock, so a worker whose clock is off cannot make a delivery due early.
 *
 * @example
 * ```ts
 * import type { DeliveryFailure } from 'loyalty-partner-sdk/webhooks';
 * const inAMinute: DeliveryFailure = { error: 'database down', retryInMs: 60_000 };
 * ```
 */
export interface DeliveryFailure {
  /** The error's message, as `list` shows it (never a secret: the receiver writes it). */
  readonly error: string;
  /** Milliseconds from now, on the store's clock, until the next run; absent: `dead`. */
  readonly retryInMs?: number | undefined;
}

/**
 * The methods an {@link InboxStore} adds to serve `createReceiver({ deferred: true })`: the web
 * process stores each verified delivery and answers 200 at once; `receiver.start()`, in any
 * process sharing the store, claims due deliveries and runs their handlers. The operators' CLI
 * (`loyalty-partner inbox stats|list|replay|discard`) uses the same methods.
 *
 * Every write about a claimed delivery (`extendLease`, `markHandled`, `markFailed`, `markParked`,
 * `runHandled`) takes effect only while `claim.owner` still holds it, so a process whose lease
 * ran out (it hung, or was presumed dead) never overwrites the outcome of the one that took over.
 * `memoryInbox()`, `postgresInbox()` and `redisInbox()` implement it.
 *
 * @example
 * ```ts
 * import { memoryInbox, type DeferredInboxStore } from 'loyalty-partner-sdk/webhooks';
 * const inbox: DeferredInboxStore = memoryInbox();
 * console.log(await inbox.stats()); // { pending: 0, handled: 0, dead: 0, parked: 0 }
 * ```
 */
export interface DeferredInboxStore<Tx = undefined> extends InboxStore<Tx> {
  /**
   * Stores a verified delivery in `state` (`pending`, or `parked` when the storing receiver cannot
   * handle it, `reason` saying why, listed as its `lastError`), due at once. `duplicate` when its
   * `eventId` is stored already, in any state, or was discarded (nothing is written).
   */
  store(
    delivery: StoredDelivery,
    state: 'pending' | 'parked',
    reason?: string,
  ): Promise<'stored' | 'duplicate'>;
  /**
   * Claims up to `limit` pending deliveries that are due (`nextAttemptAt` passed) and not held
   * by a live lease, oldest due first, for `leaseMs` under `owner`, counting one more attempt on
   * each. Concurrent calls (from any process) never return the same delivery while its lease lives.
   */
  claimDue(owner: string, limit: number): Promise<ClaimedDelivery[]>;
  /**
   * Renews the lease of claims still held by `owner` for another `leaseMs`; returns the event ids
   * of `claims` it no longer holds (their handler's outcome will not be recorded).
   */
  extendLease(owner: string, eventIds: readonly string[]): Promise<string[]>;
  /** The handler succeeded: `handled` (kept for the store's retention). False: claim lost. */
  markHandled(claim: ClaimedDelivery): Promise<boolean>;
  /**
   * Optional: `markHandled` for each of `handled`, then `claimDue(owner, limit)`, in one write.
   * Handlers end just before the runner claims again (an ended handler frees the slot it claims
   * for): carried together, the marks cost no statement of their own. Resolves with the event ids
   * it marked (the others' claims were lost) and the new claims; when it rejects, none was marked.
   * Without it the runner marks each delivery on its own.
   */
  markHandledAndClaim?(
    handled: readonly ClaimedDelivery[],
    owner: string,
    limit: number,
  ): Promise<{ readonly marked: readonly string[]; readonly claims: ClaimedDelivery[] }>;
  /** The handler failed: `pending` for `retryInMs`, or `dead` without it. False: claim lost. */
  markFailed(claim: ClaimedDelivery, failure: DeliveryFailure): Promise<boolean>;
  /** This version cannot handle it (`reason` is listed as its `lastError`). False: claim lost. */
  markParked(claim: ClaimedDelivery, reason: string): Promise<boolean>;
  /**
   * Transactional stores only: runs `work(tx)` and marks the delivery `handled` in ONE
   * transaction, if `claim.owner` still holds it (else `work` does not run or is rolled back:
   * false). Rejects with `work`'s error after rolling back, or with a store error.
   */
  runHandled?(claim: ClaimedDelivery, work: (tx: Tx) => Promise<void>): Promise<boolean>;
  /** How many deliveries are in each state (handled ones within the retention). */
  stats(): Promise<Record<DeliveryState, number>>;
  /**
   * Per tenant holding `pending`, `dead` or `parked` deliveries, by tenant id: how many are in
   * each of those states, and when its oldest pending one was received (epoch ms, `null` when it
   * has none). Handled deliveries are not counted per tenant (their total is in `stats()`), so
   * the ones kept for the retention are never read. The operators' dashboard and `loyalty-partner
   * inbox stats` show it. Optional: without it they show the totals only.
   *
   * @example
   * ```ts
   * import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
   * const inbox = memoryInbox();
   * for (const { tenantId, states, oldestPendingAt } of (await inbox.statsByTenant?.()) ?? [])
   *   console.log(tenantId, states.dead ?? 0, oldestPendingAt); // 'merchant-1' 2 1763630000000
   * ```
   */
  statsByTenant?(): Promise<
    readonly {
      readonly tenantId: string;
      readonly states: Readonly<Partial<Record<'pending' | 'dead' | 'parked', number>>>;
      readonly oldestPendingAt: number | null;
    }[]
  >;
  /** Deliveries in one state, oldest received first, without their bodies. */
  list(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /**
   * Back to `pending`, due now, with its attempts counted from 0 and its lease cleared: from
   * `dead`, `parked` or `handled` (its handler runs again). False when no such delivery is stored
   * or it is `pending` already.
   */
  replay(eventId: string): Promise<boolean>;
  /**
   * Drops a `pending`, `dead` or `parked` delivery's body and marks it handled without running it,
   * so a redelivery is still a duplicate within the retention. False when none is stored or it was
   * handled already.
   */
  discard(eventId: string): Promise<boolean>;
  /**
   * Deletes up to `batchSize` deliveries `handled` more than the store's retention ago (their raw
   * bodies with them); returns how many. `dead` and `parked` ones are never deleted here.
   */
  cleanup(batchSize: number): Promise<number>;
  /** How long a claim holds, in milliseconds (renewed by `extendLease` while its handler runs). */
  readonly leaseMs: number;
}

/** Whether a store can serve `deferred: true` (checked once, when the receiver is created). */
export function isDeferredInboxStore(value: unknown): value is DeferredInboxStore<unknown> {
  if (!isInboxStore(value)) return false;
  const store = value as unknown as Record<string, unknown>;
  return (
    typeof store.leaseMs === 'number' &&
    ['store', 'claimDue', 'extendLease', 'markHandled', 'markFailed', 'markParked'].every(
      (name) => typeof store[name] === 'function',
    ) &&
    ['stats', 'list', 'replay', 'discard', 'cleanup'].every((name) => typeof store[name] === 'function') &&
    (store.runHandled === undefined || typeof store.runHandled === 'function') &&
    (store.markHandledAndClaim === undefined || typeof store.markHandledAndClaim === 'function')
  );
}
