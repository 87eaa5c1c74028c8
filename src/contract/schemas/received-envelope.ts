// zod/mini (see primitives.ts): the receiver parses every delivery with this schema on the edge.
import * as z from 'zod/mini';
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
 * The envelope fields without judging the payload. A receiver parses this first, so that an
 * event type or `schemaVersion` it does not know is recognised as such instead of as garbage.
 */
export const receivedEnvelopeHeaderSchema = z.looseObject(receivedEnvelopeHeaderShape);
