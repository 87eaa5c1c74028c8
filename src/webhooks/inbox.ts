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
  return hasMethods(value, ['begin', 'complete', 'release'], ['transaction', 'extend']);
}

/** `value` is an object with each of `required` as a function, and each of `optional` absent or one. */
function hasMethods(value: unknown, required: readonly string[], optional: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const store = value as Record<string, unknown>;
  return (
    required.every((name) => typeof store[name] === 'function') &&
    optional.every((name) => store[name] === undefined || typeof store[name] === 'function')
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
 * A failed run: due again `retryInMs` from now on the STORE's clock (so a worker whose clock is
 * off never runs the retries early), or `dead` when `retryInMs` is absent.
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
  /** Milliseconds until the next run; absent: retries are exhausted, the delivery is `dead`. */
  readonly retryInMs?: number | undefined;
}

/**
 * Who did an operator's action, written to the store's audit trail in the same transaction (or
 * script) as the action: both happen or neither. The entry's detail also says the state the
 * delivery came `from`.
 *
 * @example
 * ```ts
 * import type { InboxAudit } from 'loyalty-partner-sdk/webhooks';
 * const audit: InboxAudit = { actor: 'ana@ops-1', detail: { ticket: 'OPS-42' } };
 * ```
 */
export interface InboxAudit {
  readonly actor: string;
  readonly detail?: Readonly<Record<string, unknown>> | undefined;
}

/** One tenant's line of `statsByTenant`. */
export interface TenantStats {
  readonly tenantId: string;
  readonly states: Readonly<Partial<Record<'pending' | 'dead' | 'parked', number>>>;
  /** When its oldest pending delivery was received (epoch ms), `null` when it has none. */
  readonly oldestPendingAt: number | null;
}

/**
 * What `statsByTenant` selects: the busiest `limit` tenants (most pending, dead and parked
 * deliveries, then the oldest pending one), or one tenant.
 *
 * @example
 * ```ts
 * import type { TenantStatsQuery } from 'loyalty-partner-sdk/webhooks';
 * const top10: TenantStatsQuery = { limit: 10 };
 * ```
 */
export interface TenantStatsQuery {
  /** @default 50 */
  limit?: number | undefined;
  tenantId?: string | undefined;
}

/**
 * The operators' part of a deferred inbox: what `receiver.stats|list|replay|discard`, the CLI
 * (`loyalty-partner inbox ...`) and the dashboard call. Every action works on the one record per
 * event id, whichever mode received it.
 *
 * @example
 * ```ts
 * import { memoryInbox, type InboxAdmin } from 'loyalty-partner-sdk/webhooks';
 * const admin: InboxAdmin = memoryInbox();
 * console.log(await admin.stats()); // { pending: 0, handled: 0, dead: 0, parked: 0 }
 * ```
 */
export interface InboxAdmin {
  /** How many records are in each state (handled ones within the retention). */
  stats(): Promise<Record<DeliveryState, number>>;
  /**
   * Per tenant holding `pending`, `dead` or `parked` records: how many are in each of those
   * states and when its oldest pending one was received; the busiest tenants first (most
   * pending + dead + parked, then oldest pending), at most `limit` of them, with the number of
   * such tenants in all. Handled records are not counted per tenant (their total is in
   * `stats()`). Optional: without it the dashboard and `inbox stats` show the totals only.
   *
   * @example
   * ```ts
   * import { memoryInbox } from 'loyalty-partner-sdk/webhooks';
   * const inbox = memoryInbox();
   * const { tenants, totalTenants } = await inbox.statsByTenant({ limit: 10 });
   * for (const { tenantId, states } of tenants) console.log(tenantId, states.dead ?? 0);
   * console.log(`${totalTenants} tenants in all`);
   * ```
   */
  statsByTenant?(
    query?: TenantStatsQuery,
  ): Promise<{ readonly tenants: readonly TenantStats[]; readonly totalTenants: number }>;
  /** Records in one state, oldest received first, without their bodies. */
  list(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /**
   * Back to `pending`, due now, attempts counted from 0, lease cleared: from `dead`, `parked` or
   * `handled` (its handler runs again), when its body is stored. False when no such record
   * exists, it has no body (received by an immediate receiver) or it is `pending` already. With
   * `audit`, the entry (`inbox.replay`, detail `from`: the state it came from) is written in the
   * same transaction.
   */
  replay(eventId: string, audit?: InboxAudit): Promise<boolean>;
  /**
   * Marks a `pending`, `dead` or `parked` record handled without running it and drops its body,
   * so a redelivery is still a duplicate within the retention. False when none exists, it was
   * handled already, or its handler is running right now (a live lease: its outcome would not
   * be what `discard` says). With `audit`, the entry (`inbox.discard`, detail `from`) is written
   * in the same transaction.
   */
  discard(eventId: string, audit?: InboxAudit): Promise<boolean>;
  /**
   * Deletes up to `batchSize` records `handled` more than the store's retention ago (their raw
   * bodies with them); returns how many. `dead` and `parked` ones are never deleted here.
   */
  cleanup(batchSize: number): Promise<number>;
}

/**
 * An {@link InboxStore} that also serves `createReceiver({ deferred: true })` and the operators:
 * the handling part (`store`, `claimDue`, `extendLease`, `markHandled`, `markFailed`,
 * `markParked`, `runHandled`, `markHandledAndClaim`) and the admin part ({@link InboxAdmin}).
 * Immediate and deferred receipt share ONE record per event id, so switching a receiver between
 * the modes never runs a handled event again and never loses a stored one.
 *
 * Every write about a claimed delivery (`extendLease`, `markHandled`, `markFailed`, `markParked`,
 * `runHandled`) takes effect only while `claim.owner` still holds it, so a process whose lease
 * ran out (it hung, or was presumed dead) never overwrites the outcome of the one that took over.
 * Due times and leases are computed on the store's clock. `memoryInbox()`, `postgresInbox()` and
 * `redisInbox()` implement it.
 *
 * @example
 * ```ts
 * import { memoryInbox, type DeferredInboxStore } from 'loyalty-partner-sdk/webhooks';
 * const inbox: DeferredInboxStore = memoryInbox();
 * console.log(await inbox.stats()); // { pending: 0, handled: 0, dead: 0, parked: 0 }
 * ```
 */
export interface DeferredInboxStore<Tx = undefined> extends InboxStore<Tx>, InboxAdmin {
  /**
   * Stores a verified delivery in `state` (`pending`, or `parked` when the storing receiver cannot
   * handle it, `reason` saying why, listed as its `lastError`), due at once: `stored`. A record
   * held by an immediate receipt still running (no body yet) gets the body and keeps its lease:
   * `stored` too (if that run fails, the deferred runner runs it). Any other record of the event
   * id: `duplicate`, nothing written.
   */
  store(
    delivery: StoredDelivery,
    state: 'pending' | 'parked',
    reason?: string,
  ): Promise<'stored' | 'duplicate'>;
  /**
   * Claims up to `limit` pending records with a body that are due and not held by a live lease,
   * oldest due first, for `leaseMs` under `owner`, counting one more attempt on each. Concurrent
   * calls (from any process) never return the same delivery while its lease lives.
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
   * Optional: `markHandled` for each of `handled`, then `claimDue(owner, limit)`, in one write,
   * for a claim loop that chooses to carry outcomes with its next claim (it calls this by name).
   * Resolves with the event ids it marked (the others' claims were lost) and the new claims;
   * when it rejects, none was marked.
   */
  markHandledAndClaim?(
    handled: readonly ClaimedDelivery[],
    owner: string,
    limit: number,
  ): Promise<{ readonly marked: readonly string[]; readonly claims: ClaimedDelivery[] }>;
  /** The handler failed: `pending` again in `retryInMs` (store's clock), or `dead`. False: claim lost. */
  markFailed(claim: ClaimedDelivery, failure: DeliveryFailure): Promise<boolean>;
  /** This version cannot handle it (`reason` is listed as its `lastError`). False: claim lost. */
  markParked(claim: ClaimedDelivery, reason: string): Promise<boolean>;
  /**
   * Transactional stores only: runs `work(tx)` and marks the delivery `handled` in ONE
   * transaction, if `claim.owner` still holds it (else `work` does not run or is rolled back:
   * false). Rejects with `work`'s error after rolling back, or with a store error (a handler
   * that ended the transaction itself, with ROLLBACK or COMMIT: `HANDLER_ENDED_TRANSACTION`, and
   * the delivery is `dead`).
   */
  runHandled?(claim: ClaimedDelivery, work: (tx: Tx) => Promise<void>): Promise<boolean>;
  /** How long a claim holds, in milliseconds (renewed by `extendLease` while its handler runs). */
  readonly leaseMs: number;
  /**
   * How many connections the store's client may open, where the driver says (a pg Pool's or a
   * postgres.js sql's `max`): a transactional run holds one for its whole handler, so the
   * runner's default concurrency stays well below it and receipts always find one.
   */
  readonly poolSize?: number | undefined;
}

/** Whether a store can serve `deferred: true` (checked once, when the receiver is created). */
export function isDeferredInboxStore(value: unknown): value is DeferredInboxStore<unknown> {
  return (
    isInboxStore(value) &&
    typeof value.leaseMs === 'number' &&
    hasMethods(
      value,
      ['store', 'claimDue', 'extendLease', 'markHandled', 'markFailed', 'markParked'],
      ['runHandled', 'markHandledAndClaim'],
    ) &&
    hasMethods(value, ['stats', 'list', 'replay', 'discard', 'cleanup'], [])
  );
}
