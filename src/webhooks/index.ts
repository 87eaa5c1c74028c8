/**
 * `loyalty-partner-sdk/webhooks`: the framework-free receiver core. It verifies with Web Crypto
 * and validates with zod/mini, so it runs on Node, edge runtimes and in browsers, and imports no
 * `node:*` module and no undici. The adapters (`/node`, `/express`, `/next`, `/fetch`) translate
 * each framework's request and response to `receiver.handle`.
 *
 * @packageDocumentation
 */

export { LoyaltyError, LoyaltyValidationError } from '../contract/errors.js';
export type { OutboundEventType } from '../contract/event-types.js';
export { isOutboundEventType, OUTBOUND_EVENT_TYPES } from '../contract/event-types.js';
export type { Envelope, ErrorEnvelope, OutboundEnvelope, PayloadOf } from '../contract/schemas/envelope.js';
export type { RawBody } from '../signature/bytes.js';
export { SignatureVerificationError } from '../signature/errors.js';
export type { Secrets } from '../signature/secrets.js';
export type { ReceiverResponse } from './answers.js';
export { correlationIdOf, errorResponse } from './answers.js';
export { createReceiver } from './create-receiver.js';
export type {
  ClaimedDelivery,
  DeferredInboxStore,
  DeliveryFailure,
  DeliveryQuery,
  DeliveryRecord,
  DeliveryState,
  InboxAdmin,
  InboxAudit,
  InboxKey,
  InboxStore,
  StoredDelivery,
  TenantStats,
  TenantStatsQuery,
} from './inbox.js';

export { memoryInbox } from './memory-inbox.js';

export type { WebhookErrorCode } from './receiver-error-codes.js';
export type { DeferredRetryOptions, ReceiverOptions, SecretResolver } from './receiver-options.js';
export type {
  DeliveryContext,
  ErrorContext,
  RawDelivery,
  Receiver,
  UnhandledEvent,
  WebhookHandlers,
} from './receiver-types.js';
export type { RuleCache } from './rule-cache.js';
export { createRuleCache } from './rule-cache.js';
export type { LoyaltyRule, RuleKey, RuleVersionStore } from './rule-store.js';
export { memoryRuleStore } from './rule-store.js';
export type { ReceiverFailure } from './webhook-error.js';
export { WebhookError } from './webhook-error.js';
