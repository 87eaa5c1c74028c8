export type { EnvelopeOptions } from './create-envelope.js';
export { createEnvelope, newEventId } from './create-envelope.js';
export type { ErrorAction, ErrorCode, ErrorCodeInfo } from './error-codes.js';
export { ERROR_CODES, errorCodeInfo, isErrorCode } from './error-codes.js';
export type { ValidationErrorCode, ValidationIssue } from './errors.js';
export { LoyaltyError, LoyaltyValidationError, toValidationIssues } from './errors.js';
export type {
  BatchEventType,
  EntityType,
  EventAvailability,
  EventDirection,
  EventType,
  EventTypeInfo,
  InboundEventType,
  OutboundEventType,
} from './event-types.js';
export {
  ENTITY_TYPES,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  INBOUND_EVENT_TYPES,
  isEventType,
  isInboundEventType,
  isOutboundEventType,
  OUTBOUND_EVENT_TYPES,
} from './event-types.js';
export type {
  Envelope,
  EnvelopeBase,
  ErrorEnvelope,
  InboundEnvelope,
  OutboundEnvelope,
  PayloadInput,
  PayloadOf,
} from './schemas/envelope.js';
export { MAX_BATCH_ITEMS } from './schemas/inbound-payloads.js';
export { schemas } from './schemas/index.js';
export { SCHEMA_VERSION } from './schemas/received-envelope.js';
export { assertInboundEventType, parseInboundEnvelope, parsePayload } from './validate.js';
