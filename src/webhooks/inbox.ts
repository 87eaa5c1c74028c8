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
    (store.transaction === undefined || typeof store.transaction === 'function')
  );
}
