import type * as z from 'zod/mini';
import { LoyaltyValidationError, toValidationIssues } from './errors.js';
import { EVENT_TYPES, type EventType, type InboundEventType, isEventType } from './event-types.js';
import { sdkErrorMap } from './issue-message.js';
import {
  type InboundEnvelope,
  inboundEnvelopeSchema,
  type PayloadOf,
  payloadSchemas,
} from './schemas/envelope.js';

/** Every parse of the SDK's: its own messages, without touching zod's global configuration. */
const PARSE_CONTEXT = { error: sdkErrorMap };

/**
 * Checks that `eventType` is one the partner may send, and throws the error a caller can act on
 * (`LoyaltyValidationError` `UNKNOWN_EVENT_TYPE` or `WRONG_EVENT_DIRECTION`). Shared by
 * `createEnvelope`, the client and the outbox so they refuse in the same words.
 */
export function assertInboundEventType(eventType: unknown): asserts eventType is InboundEventType {
  if (!isEventType(eventType)) {
    throw new LoyaltyValidationError(
      'UNKNOWN_EVENT_TYPE',
      `Unknown event type ${JSON.stringify(String(eventType)).slice(0, 80)}: use one of the 16 types of EVENT_TYPES`,
    );
  }
  if (EVENT_TYPES[eventType].direction !== 'inbound') {
    throw new LoyaltyValidationError(
      'WRONG_EVENT_DIRECTION',
      `${eventType} is sent by the Loyalty service to your receiver; a partner never posts it`,
      [],
      { eventType },
    );
  }
}

/**
 * Validates a payload against its event type's schema and returns it with defaults applied.
 * Throws `LoyaltyValidationError` with the path of every field at fault.
 *
 * @example
 * ```ts
 * import { parsePayload } from 'loyalty-partner-sdk';
 * const product = parsePayload('ProductSynced', { externalProductId: 'p-1', name: 'Latte', price: 14 });
 * product.isActive; // true (the contract's default)
 * ```
 */
export function parsePayload<T extends EventType>(eventType: T, payload: unknown): PayloadOf<T> {
  return parsePayloadWith(plainPayloadSchema, eventType, payload);
}

/** Where a type's payload schema comes from: the contract's own, or (Node build) one zod compiled. */
export type PayloadSchemaOf = (eventType: EventType) => (typeof payloadSchemas)[EventType];

/** The contract's payload schema, as written. */
export const plainPayloadSchema: PayloadSchemaOf = (eventType) => payloadSchemas[eventType];

/** `parsePayload` on the schemas `schemaOf` gives (the Node build's compiled): same result, same errors. */
export function parsePayloadWith<T extends EventType>(
  schemaOf: PayloadSchemaOf,
  eventType: T,
  payload: unknown,
): PayloadOf<T> {
  if (!isEventType(eventType)) assertInboundEventType(eventType);
  return parseOrThrow(schemaOf(eventType), payload, eventType, 'payload') as PayloadOf<T>;
}

/**
 * Validates a complete envelope the partner is about to send (for example one rebuilt from a
 * queue) and returns it parsed. Throws `LoyaltyValidationError` naming every field at fault.
 */
export function parseInboundEnvelope(envelope: unknown): InboundEnvelope {
  const eventType = (envelope as { eventType?: unknown } | null)?.eventType;
  assertInboundEventType(eventType);
  return parseOrThrow(inboundEnvelopeSchema, envelope, eventType, 'envelope');
}

/** `value` parsed by `schema`, or `INVALID_PAYLOAD` naming every field at fault. */
function parseOrThrow<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  eventType: EventType,
  what: 'payload' | 'envelope',
): z.output<S> {
  const result = schema.safeParse(value, PARSE_CONTEXT);
  if (result.success) return result.data;
  const issues = toValidationIssues(result.error.issues, what === 'payload' ? 'payload' : '', value);
  throw new LoyaltyValidationError('INVALID_PAYLOAD', `Invalid ${eventType} ${what}`, issues, { eventType });
}
