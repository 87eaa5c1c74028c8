/**
 * `loyalty-partner-sdk`, Web build (browsers, kiosk webviews, edge runtimes): the client uses
 * `fetch` and Web Crypto. On Node.js the `node` export condition serves
 * `src/platform-node/index.ts` instead, with the same names.
 */

export type { ApiResult, CustomerLookupBody } from './client/api-result.js';
export type { LookupCustomerQuery, RequestOptions } from './client/calls.js';
export type { ApiErrorCode, NetworkErrorCode } from './client/errors.js';
export { LoyaltyApiError, LoyaltyClientClosedError, LoyaltyNetworkError } from './client/errors.js';
export type {
  ClientHooks,
  ClientRequestEvent,
  ClientResponseEvent,
  ClockSkewEvent,
  RetryEvent,
} from './client/hooks.js';
export { LoyaltyClient } from './client/loyalty-client.js';
export type {
  ClientPaths,
  LoyaltyClientOptions,
  RetryBudgetOptions,
  RetryOptions,
} from './client/options.js';
export { CLIENT_DEFAULTS } from './client/options.js';
export type {
  CallOptions,
  SendEnvelopeOptions,
  SendOptions,
  SendResult,
  SendTrace,
} from './client/send-types.js';
export type {
  BatchItem,
  SyncBatchChunkResult,
  SyncBatchOptions,
  SyncBatchProgress,
  SyncBatchSummary,
} from './client/sync-batch-options.js';
export { SYNC_BATCH_DEFAULTS } from './client/sync-batch-options.js';
export { SDK_VERSION } from './client/user-agent.js';
export type {
  BatchEventType,
  EntityType,
  Envelope,
  EnvelopeBase,
  EnvelopeOptions,
  ErrorAction,
  ErrorCode,
  ErrorCodeInfo,
  ErrorEnvelope,
  EventAvailability,
  EventDirection,
  EventType,
  EventTypeInfo,
  InboundEnvelope,
  InboundEventType,
  OutboundEnvelope,
  OutboundEventType,
  PayloadInput,
  PayloadOf,
  ValidationErrorCode,
  ValidationIssue,
} from './contract/index.js';
export {
  assertInboundEventType,
  createEnvelope,
  ENTITY_TYPES,
  ERROR_CODES,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  errorCodeInfo,
  INBOUND_EVENT_TYPES,
  isErrorCode,
  isEventType,
  isInboundEventType,
  isOutboundEventType,
  LoyaltyError,
  LoyaltyValidationError,
  MAX_BATCH_ITEMS,
  newEventId,
  OUTBOUND_EVENT_TYPES,
  parseInboundEnvelope,
  parsePayload,
  SCHEMA_VERSION,
  schemas,
  toValidationIssues,
} from './contract/index.js';
export type {
  ParsedSignatureHeader,
  RawBody,
  Secrets,
  SignatureVerificationCode,
  SignatureVerificationReason,
  SignOptions,
  SignPayload,
  SignPayloadAsync,
  VerifiedSignature,
  VerifyOptions,
  VerifySignature,
  VerifySignatureAsync,
} from './signature/index.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  SignatureVerificationError,
  signPayload,
  signPayloadAsync,
  verifySignature,
  verifySignatureAsync,
} from './signature/index.js';
export type { Logger } from './telemetry/logger.js';
export type { MeterProviderLike, TracerProviderLike } from './telemetry/otel-types.js';
export type { TelemetryOptions } from './telemetry/telemetry.js';
