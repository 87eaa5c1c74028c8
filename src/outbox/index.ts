/**
 * `loyalty-partner-sdk/outbox`: a durable queue for terminals that go offline. Events are on disk
 * before `enqueue` resolves and are delivered in order per tenant once the service is reachable.
 *
 * @module loyalty-partner-sdk/outbox
 */
export {
  OutboxClosedError,
  OutboxDuplicateRiskError,
  OutboxEventStateError,
  OutboxFullError,
  OutboxLockedError,
  OutboxNotStartedError,
  OutboxStoreError,
} from './errors.js';
export type { FileStore } from './file-store.js';
export { fileStore } from './file-store.js';
export { memoryStore } from './memory-store.js';
export { createOutbox } from './outbox.js';
export type { EnqueueOptions, Outbox, OutboxControl, OutboxStats, SharedOutbox } from './outbox-api.js';
export type { OutboxHooks } from './outbox-hooks.js';
export type { OutboxOptions, OutboxSender } from './outbox-options.js';
export { outboxStatusHandler } from './status-handler.js';
// The store interfaces' parameter types (ClaimRequest, EventPatch, ...) are not exported: an
// implementation typed as `LocalStore` or `SharedStore` gets them by contextual typing.
export type { EventState, LocalStore, OutboxStore, SharedStore, StoredEvent } from './store.js';
