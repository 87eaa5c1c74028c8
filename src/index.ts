/**
 * `loyalty-partner-sdk`, Web build (browsers, kiosk webviews, edge runtimes): the client uses
 * `fetch` and Web Crypto. On Node.js the `node` export condition serves
 * `src/platform-node/index.ts` instead, with the same names.
 */

export type { ApiResult, CustomerLookupBody } from './client/api-result.js';
export type { RequestOptions } from './client/calls.js';

export { LoyaltyApiError, LoyaltyClientClosedError, LoyaltyNetworkError } from './client/errors.js';
export type { ClientHooks } from './client/hooks.js';
export { LoyaltyClient } from './client/loyalty-client.js';
export type { LoyaltyClientOptions, RetryOptions } from './client/options.js';
export type { SendOptions, SendResult } from './client/send-types.js';
export type { BatchItem, SyncBatchOptions, SyncBatchSummary } from './client/sync-batch-options.js';
export type {
  BatchEventType,
  Envelope,
  ErrorCode,
  ErrorCodeInfo,
  ErrorEnvelope,
  EventType,
  InboundEnvelope,
  InboundEventType,
  OutboundEnvelope,
  OutboundEventType,
  PayloadInput,
  PayloadOf,
  ValidationIssue,
} from './contract/index.js';
export {
  createEnvelope,
  ERROR_CODES,
  EVENT_TYPES,
  LoyaltyError,
  LoyaltyValidationError,
  newEventId,
  parsePayload,
  schemas,
} from './contract/index.js';
export type { Logger } from './contract/logger.js';
// Signing and verifying from the root, as API.md promises; the rest of the signature surface
// (parseSignatureHeader, signPayloadAsync, their types) lives in `loyalty-partner-sdk/signature`.
export {
  SignatureVerificationError,
  signPayload,
  verifySignature,
  verifySignatureAsync,
} from './signature/index.js';
export type { MeterProviderLike, TracerProviderLike } from './telemetry/otel-types.js';
export type { TelemetryOptions } from './telemetry/telemetry.js';
