/**
 * Which event a claim is about. The `eventId` alone is the key (the contract's dedup key): a
 * delivery replayed under another `X-TenantId` is the same event, never a new one.
 *
 * @example
 * ```ts
 * import type { InboxKey } from 'loyalty-partner-sdk/webhooks';
 * const rowId = (key: InboxKey) => key.eventId;
 * ```
 */
export interface InboxKey {
  /** The envelope's `eventId`: the key. */
  readonly eventId: string;
  /** Kept beside the claim by stores that record it; not part of the key. */
  readonly eventType: string;
  /** The delivery's `X-TenantId` (`''` when none); not part of the key. */
  readonly tenantId: string;
}

/**
 * What `begin` found: `new` (claimed now: run the handler), `done` (answer 200 without running
 * it) or `in-progress` (another delivery holds the claim: answer 503).
 */
export type InboxClaim = 'new' | 'done' | 'in-progress';

/**
 * Where a receiver records which events it has handled, so the handler runs once per `eventId`
 * although the service redelivers on every 5xx and timeout. Every method may return a promise.
 * A transactional store (`Tx` its transaction type) also has `transaction`: the handler then runs
 * inside it as `ctx.tx`, and the "done" mark commits with its writes.
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
   * Claims the event atomically for `leaseMs`: of concurrent calls for one `eventId` exactly one
   * sees `new`; a claim older than the lease (its process died) is taken over.
   */
  begin(key: InboxKey): InboxClaim | Promise<InboxClaim>;
  /** The handler finished: later deliveries of this key are duplicates (`done`). */
  complete(key: InboxKey): void | Promise<void>;
  /** The handler failed: drop the claim so that the redelivery runs the handler again. */
  release(key: InboxKey): void | Promise<void>;
  /**
   * Transactional stores only: claims the key and runs `work(tx)` in ONE transaction that also
   * marks the event done. Resolves `new` once committed, `done` or `in-progress` without running
   * `work`; rejects with `work`'s error after rolling back (no claim is left), or a store error.
   */
  transaction?(key: InboxKey, work: (tx: Tx) => Promise<void>): Promise<InboxClaim>;
  /**
   * Stores with a lease: renews this process's claim for another `leaseMs` while its handler
   * runs (every third of the lease), so a live slow handler keeps it. False: the claim is lost.
   */
  extend?(key: InboxKey): boolean | Promise<boolean>;
  /** How long a claim holds, in milliseconds; `createReceiver` checks `handlerTimeoutMs` is shorter. */
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
 * Where a stored delivery stands: `pending` (before its first run or between retries), `handled`,
 * `dead` (failed on every attempt) or `parked` (this version cannot handle it); `dead` and
 * `parked` ones are kept until `replay` or `discard`.
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
 * A verified delivery as a deferred inbox stores it: what any process needs to run its handler
 * later, without the request (the signature was checked before it was stored).
 *
 * @example
 * ```ts
 * import type { StoredDelivery } from 'loyalty-partner-sdk/webhooks';
 * const size = (delivery: StoredDelivery) => delivery.rawBody.length;
 * ```
 */
export interface StoredDelivery extends InboxKey {
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
 * A stored delivery claimed by one process to run its handler, held by `owner` until the lease ends.
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
export interface DeliveryRecord extends InboxKey {
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
 * A failed run: due again `retryInMs` from now on the STORE's clock (a worker's clock may be
 * off), or `dead` without `retryInMs`.
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
 * Who did an operator's action, written to the store's audit trail with the action (both happen
 * or neither); the entry's detail also says the state the delivery came `from`.
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
 * and the dashboard call, on the one record per event id.
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
   * Per tenant holding `pending`, `dead` or `parked` records: its counts and oldest pending one,
   * busiest first, at most `limit` tenants, and how many there are in all. Optional: without it
   * the dashboard and `inbox stats` show the totals only.
   */
  statsByTenant?(
    query?: TenantStatsQuery,
  ): Promise<{ readonly tenants: readonly TenantStats[]; readonly totalTenants: number }>;
  /** Records in one state, oldest received first, without their bodies. */
  list(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /**
   * Back to `pending`, due now, attempts from 0: from `dead`, `parked` or `handled`, when its body
   * is stored. False when there is no such record, no body, or it is `pending`. With `audit`, the
   * entry (`inbox.replay`) is written in the same transaction.
   */
  replay(eventId: string, audit?: InboxAudit): Promise<boolean>;
  /**
   * Marks a record handled without running it and drops its body (a redelivery is still a
   * duplicate). False when none exists, it is handled, or its handler runs now (a live lease).
   * With `audit`, the entry (`inbox.discard`) is written in the same transaction.
   */
  discard(eventId: string, audit?: InboxAudit): Promise<boolean>;
  /** Deletes up to `batchSize` records handled longer than the retention ago; returns how many. */
  cleanup(batchSize: number): Promise<number>;
}

/**
 * An {@link InboxStore} that also serves `createReceiver({ deferred: true })` and the operators
 * ({@link InboxAdmin}). Immediate and deferred receipt share ONE record per event id, so switching
 * modes never runs a handled event again nor loses a stored one. Every write about a claim takes
 * effect only while `claim.owner` still holds it, so a process whose lease ran out never
 * overwrites the outcome of the one that took over; times are the store's clock.
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
   * Stores a verified delivery, due at once, in `state` (`parked` with `reason` as its
   * `lastError`): `stored`. A record an immediate receipt still holds gets the body (`stored`);
   * any other record of the event id: `duplicate`, nothing written.
   */
  store(
    delivery: StoredDelivery,
    state: 'pending' | 'parked',
    reason?: string,
  ): Promise<'stored' | 'duplicate'>;
  /**
   * Claims up to `limit` due pending records with a body and no live lease, oldest due first, for
   * `leaseMs` under `owner`, one more attempt each; never the same one twice while its lease lives.
   */
  claimDue(owner: string, limit: number): Promise<ClaimedDelivery[]>;
  /** Renews `owner`'s claims for another `leaseMs`; returns the event ids it no longer holds. */
  extendLease(owner: string, eventIds: readonly string[]): Promise<string[]>;
  /** The handler succeeded: `handled` (kept for the store's retention). False: claim lost. */
  markHandled(claim: ClaimedDelivery): Promise<boolean>;
  /**
   * Optional: `markHandled` for each of `handled`, then `claimDue(owner, limit)`, in one write.
   * Resolves with the ids it marked (the others' claims were lost) and the new claims; when it
   * rejects, none was marked. With `limit` 0 it only marks: the runner writes the marks that no
   * claim is coming to carry this way, in one statement.
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
   * transaction while `claim.owner` holds it (else false). Rejects with `work`'s error after
   * rolling back, or a store error (`HANDLER_ENDED_TRANSACTION`: the delivery is `dead`).
   */
  runHandled?(claim: ClaimedDelivery, work: (tx: Tx) => Promise<void>): Promise<boolean>;
  /** How long a claim holds, in milliseconds (renewed by `extendLease` while its handler runs). */
  readonly leaseMs: number;
  /**
   * How many connections the store's client may open, where the driver says: a transactional run
   * holds one for its whole handler, so the runner's default concurrency stays well below it.
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
