import { LoyaltyValidationError, toValidationIssues } from '../contract/errors.js';
import { isInboundEventType, isOutboundEventType, type OutboundEventType } from '../contract/event-types.js';
import type { OutboundEnvelope } from '../contract/schemas/envelope.js';
import { outboundPayloadSchemas } from '../contract/schemas/outbound-payloads.js';
import {
  receivedEnvelopeHeaderSchema,
  receivedEnvelopeSchemas,
  SCHEMA_VERSION,
} from '../contract/schemas/received-envelope.js';
import { toBytes } from '../signature/bytes.js';
import type { UnhandledEvent, UnhandledReason } from './receiver-types.js';

/** What a verified body turned out to be. */
export type ParsedDelivery =
  | { kind: 'event'; event: OutboundEnvelope }
  | { kind: 'unhandled'; event: UnhandledEvent; reason: Exclude<UnhandledReason, 'no-handler'> }
  | { kind: 'invalid'; error: InvalidPayload; eventType?: string; eventId?: string };

/** The error of a body that is not a valid envelope: always `INVALID_PAYLOAD`. */
export type InvalidPayload = LoyaltyValidationError & { readonly code: 'INVALID_PAYLOAD' };

// `fatal`: a body that is not UTF-8 is refused, never read with replacement characters.
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * The schema a build validates the whole envelope of `eventType` with: the contract's
 * (`receivedEnvelopeSchemas`) in the Web build, the same schema compiled by zod in the Node build.
 */
export type EnvelopeSchemaOf = <T extends OutboundEventType>(
  eventType: T,
) => (typeof receivedEnvelopeSchemas)[T];

/** The contract's schemas as they are. */
export const contractEnvelopeSchema: EnvelopeSchemaOf = (eventType) => receivedEnvelopeSchemas[eventType];

const invalid = (message: string, issues: LoyaltyValidationError['issues'] = [], eventType?: string) =>
  new LoyaltyValidationError('INVALID_PAYLOAD', message, issues, { eventType }) as InvalidPayload;

/**
 * Reads an authenticated body as an envelope. Envelope fields are judged first, so that an event
 * type or a `schemaVersion` this SDK does not know is recognised as such (and acknowledged)
 * rather than refused as garbage; only the payload of a known type is held to its schema.
 */
export function parseDelivery(rawBody: unknown, envelopeSchemaOf: EnvelopeSchemaOf): ParsedDelivery {
  let json: unknown;
  try {
    json = JSON.parse(typeof rawBody === 'string' ? rawBody : decoder.decode(toBytes(rawBody)));
  } catch {
    return { kind: 'invalid', error: invalid('The body is not UTF-8 JSON') };
  }
  // Nearly every delivery is a valid envelope of a known type: one pass over its whole schema
  // accepts exactly what the two steps would, faster; only what it refuses takes the two steps,
  // which tell an unknown type or version from garbage and name the faults.
  const named = json as { eventType?: unknown; schemaVersion?: unknown } | null;
  const eventType = typeof named === 'object' && named !== null ? named.eventType : undefined;
  if (isOutboundEventType(eventType) && named?.schemaVersion === SCHEMA_VERSION) {
    const whole = envelopeSchemaOf(eventType).safeParse(json);
    if (whole.success)
      return { kind: 'event', event: withoutNullCorrelation(whole.data) as OutboundEnvelope };
  }
  return parseInSteps(json);
}

// A null correlationId means "none"; handlers see it absent, as the Envelope type promises.
function withoutNullCorrelation<T extends { correlationId?: string | null | undefined }>(envelope: T): T {
  if (envelope.correlationId === null) delete envelope.correlationId;
  return envelope;
}

/** The envelope fields first, then the payload of a known type: says what is wrong, and where. */
function parseInSteps(json: unknown): ParsedDelivery {
  const header = receivedEnvelopeHeaderSchema.safeParse(json);
  if (!header.success) {
    const issues = toValidationIssues(header.error.issues, '');
    return { kind: 'invalid', error: invalid('The body is not an event envelope', issues) };
  }
  const envelope = withoutNullCorrelation(header.data);
  const { eventType, eventId } = envelope;

  if (isInboundEventType(eventType)) {
    const message = `${eventType} is an event partners send to the service; it is never delivered to a receiver`;
    return { kind: 'invalid', error: invalid(message, [], eventType), eventType, eventId };
  }
  if (!isOutboundEventType(eventType))
    return { kind: 'unhandled', event: envelope, reason: 'unknown-event-type' };
  if (envelope.schemaVersion !== SCHEMA_VERSION) {
    return { kind: 'unhandled', event: envelope, reason: 'unsupported-schema-version' };
  }

  const payload = outboundPayloadSchemas[eventType].safeParse(envelope.payload);
  if (!payload.success) {
    const issues = toValidationIssues(payload.error.issues, 'payload');
    const error = invalid(`Invalid ${eventType} payload`, issues, eventType);
    return { kind: 'invalid', error, eventType, eventId };
  }
  return { kind: 'event', event: { ...envelope, payload: payload.data } as OutboundEnvelope };
}
