// zod/mini (see primitives.ts): the receiver parses every delivery with these schemas on the edge.
import * as z from 'zod/mini';
import { OUTBOUND_EVENT_TYPES, type OutboundEventType } from '../event-types.js';
import { outboundPayloadSchemas } from './outbound-payloads.js';
import { guid, utcTimestamp } from './primitives.js';

/** The current (and only) `schemaVersion` of the envelope. */
export const SCHEMA_VERSION = 1;

/** Envelope fields of a delivery, payload unjudged; `envelope.ts` narrows them per event type. */
export const receivedEnvelopeHeaderShape = {
  eventId: guid,
  occurredAt: utcTimestamp,
  entityType: z.string(),
  entityId: z.string(),
  sourceSystem: z.string(),
  schemaVersion: z.int().check(z.positive()),
  correlationId: z.nullish(guid),
  eventType: z.string().check(z.minLength(1)),
  payload: z.record(z.string(), z.unknown()),
};

/**
 * The envelope fields without judging the payload (public as `schemas.envelopeHeader`). A receiver
 * parses this first, so that an event type or `schemaVersion` it does not know is recognised as such
 * instead of as garbage.
 */
export const receivedEnvelopeHeaderSchema = z.looseObject(receivedEnvelopeHeaderShape);

/** The whole envelope the service delivers for `eventType`, payload included: one pass. */
function receivedEnvelope<T extends OutboundEventType>(eventType: T) {
  return z.looseObject({
    ...receivedEnvelopeHeaderShape,
    eventType: z.literal(eventType),
    schemaVersion: z.literal(SCHEMA_VERSION),
    payload: outboundPayloadSchemas[eventType],
  });
}

/**
 * The whole envelope of each event type the service delivers, by name: loose (unknown fields
 * pass), `schemaVersion` 1, the payload held to its type's schema. What a receiver checks a
 * delivery against once it has read its `eventType`: one pass over one object schema, and no
 * union to dispatch through.
 */
export const receivedEnvelopeSchemas = Object.fromEntries(
  OUTBOUND_EVENT_TYPES.map((eventType) => [eventType, receivedEnvelope(eventType)]),
) as { [K in OutboundEventType]: ReturnType<typeof receivedEnvelope<K>> };
