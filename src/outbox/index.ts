/**
 * `loyalty-partner-sdk/outbox`: a durable queue for terminals that go offline. Events are on disk
 * before `enqueue` resolves and are delivered in order per tenant once the service is reachable.
 */
export type { OutboxErrorCode } from './errors.js';
export {
  OutboxClosedError,
  OutboxDuplicateRiskError,
  OutboxEventStateError,
  OutboxFullError,
  OutboxLockedError,
  OutboxNotStartedError,
  OutboxStoreError,
} from './errors.js';
export type { FileStore, JournalStats } from './file-store.js';
export { fileStore } from './file-store.js';
export { memoryStore } from './memory-store.js';
export { createOutbox } from './outbox.js';
export type {
  EnqueueArgs,
  EnqueueOptions,
  Outbox,
  OutboxControl,
  OutboxStats,
  SharedOutbox,
  Tenancy,
} from './outbox-api.js';
export type { DeliveredInfo, OutboxHooks, OutcomeInfo } from './outbox-hooks.js';
export type {
  MultiTenantOptions,
  OutboxCommonOptions,
  OutboxOptions,
  OutboxSender,
  OutboxSendResult,
  SingleTenantOptions,
} from './outbox-options.js';
export type { IntegrationStatusEventLike, TenantContextLike, TenantControl } from './status-handler.js';
export { outboxStatusHandler } from './status-handler.js';
export type {
  CausalKeys,
  ClaimOutcome,
  ClaimRequest,
  EventFailure,
  EventPatch,
  EventState,
  LocalStore,
  OutboxStore,
  SharedStore,
  StoredEvent,
  StoredTenantStop,
  StoreSnapshot,
} from './store.js';
export type { FileStoreOptions, StoreLimits } from './store-options.js';
export type { TenantState, TenantStatus } from './tenant-state.js';
