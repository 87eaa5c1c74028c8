/**
 * Which event a claim is about: event ids are unique per tenant, so both make the key.
 *
 * @example
 * ```ts
 * import type { InboxKey } from 'loyalty-partner-sdk/webhooks';
 * const rowId = (key: InboxKey) => [key.tenantId, key.eventId];
 * ```
 */
export interface InboxKey {
  /** The delivery's `X-TenantId` (`''` when a receiver with one static secret got none). */
  readonly tenantId: string;
  /** The envelope's `eventId`, the contract's dedup key (a redelivery carries the same value). */
  readonly eventId: string;
  /** The envelope's `eventType`, for stores that keep it beside the claim. Not part of the key. */
  readonly eventType: string;
}

/**
 * What `begin` found: `new` (claimed now: run the handler), `done` (handled before: answer 200
 * without running it) or `in-progress` (another delivery holds the claim: answer 503).
 *
 * @example
 * ```ts
 * import type { InboxClaim } from 'loyalty-partner-sdk/webhooks';
 * const fromStatusColumn = (status: string | undefined): InboxClaim => (status === 'done' ? 'done' : 'in-progress');
 * ```
 */
export type InboxClaim = 'new' | 'done' | 'in-progress';

/**
 * Where a receiver records which events it has handled, so the handler runs once per
 * `eventId` even though the service redelivers on every 5xx and timeout. Every method may return
 * a promise. The default is `memoryInbox()`; use a database for several processes (the README
 * has a Postgres implementation with a unique index on tenant and event id).
 *
 * @example
 * ```ts
 * import type { InboxClaim, InboxKey, InboxStore } from 'loyalty-partner-sdk/webhooks';
 *
 * // A single-process store that never forgets, to show the three steps.
 * const state = new Map<string, 'in-progress' | 'done'>();
 * const id = (key: InboxKey) => `${key.tenantId}/${key.eventId}`;
 * export const naiveInbox: InboxStore = {
 *   begin(key): InboxClaim {
 *     const found = state.get(id(key));
 *     if (found) return found;
 *     state.set(id(key), 'in-progress');
 *     return 'new';
 *   },
 *   complete(key) { state.set(id(key), 'done'); },
 *   release(key) { state.delete(id(key)); },
 * };
 * ```
 */
export interface InboxStore {
  /**
   * Claims the event, atomically: of two concurrent calls for one key, exactly one may see
   * `new`. A claim that is neither completed nor released stays `in-progress`.
   */
  begin(key: InboxKey): InboxClaim | Promise<InboxClaim>;
  /** The handler finished: later deliveries of this key are duplicates (`done`). */
  complete(key: InboxKey): void | Promise<void>;
  /** The handler failed: drop the claim so that the redelivery runs the handler again. */
  release(key: InboxKey): void | Promise<void>;
}

/** Checks the shape of a user-supplied store once, when the receiver is created. */
export function isInboxStore(value: unknown): value is InboxStore {
  const store = value as Partial<Record<keyof InboxStore, unknown>> | null;
  return (
    typeof store === 'object' &&
    store !== null &&
    typeof store.begin === 'function' &&
    typeof store.complete === 'function' &&
    typeof store.release === 'function'
  );
}
