import * as z from 'zod/mini';
import {
  EVENT_TYPES,
  type EventType,
  INBOUND_EVENT_TYPES,
  type InboundEventType,
  OUTBOUND_EVENT_TYPES,
  type OutboundEventType,
} from '../event-types.js';
import { inboundPayloadSchemas } from './inbound-payloads.js';
import { outboundPayloadSchemas } from './outbound-payloads.js';
import { guid, id, utcTimestamp, uuidV7 } from './primitives.js';
import { receivedEnvelopeSchemas, SCHEMA_VERSION } from './received-envelope.js';

/** Payload schema of every event type, by name. */
export const payloadSchemas = {
  ...inboundPayloadSchemas,
  ...outboundPayloadSchemas,
} as const satisfies Record<EventType, z.core.$ZodType>;

/**
 * A parsed type without the `[key: string]: unknown` that loose (received) schemas add: unknown
 * fields still pass at run time, but a misspelt field name does not compile.
 */
type KnownFields<T> = T extends readonly unknown[]
  ? T
  : T extends object
    ? { [K in keyof T as string extends K ? never : K]: KnownFields<T[K]> }
    : T;

/** The payload of `T` after parsing (defaults applied: `isActive: true`, `stampCardId: null`, ...). */
export type PayloadOf<T extends EventType> = KnownFields<z.output<(typeof payloadSchemas)[T]>>;
/** The payload of `T` as a caller may write it (fields with defaults may be omitted). */
export type PayloadInput<T extends EventType> = z.input<(typeof payloadSchemas)[T]>;

/** Envelope fields shared by every event type (spec section 2.1). */
export interface EnvelopeBase {
  /** UUID version 7; the dedup key: a retry carries the same value. */
  eventId: string;
  /** When the event happened at the source, ISO 8601 UTC. */
  occurredAt: string;
  entityType: (typeof EVENT_TYPES)[EventType]['entityType'];
  /** Id of the affected entity in the sender's system. */
  entityId: string;
  sourceSystem: 'Partner' | 'Loyalty';
  schemaVersion: number;
  /** Optional GUID tying related events across systems. */
  correlationId?: string | undefined;
}

/** One event: the envelope with the payload of its `eventType`. A union discriminated on `eventType`. */
export type Envelope<T extends EventType = EventType> = {
  [K in T]: EnvelopeBase & {
    eventType: K;
    entityType: (typeof EVENT_TYPES)[K]['entityType'];
    payload: PayloadOf<K>;
  };
}[T];
/** An envelope the partner sends. */
export type InboundEnvelope = Envelope<InboundEventType>;
/** An envelope the service delivers to the partner's receiver. */
export type OutboundEnvelope = Envelope<OutboundEventType>;

function sentEnvelope(eventType: InboundEventType) {
  return z.strictObject({
    eventId: uuidV7,
    occurredAt: utcTimestamp,
    entityType: z.literal(EVENT_TYPES[eventType].entityType, {
      error: `must be ${EVENT_TYPES[eventType].entityType} for ${eventType}`,
    }),
    entityId: id,
    sourceSystem: z.literal('Partner', { error: 'must be Partner for an event the partner sends' }),
    schemaVersion: z.literal(SCHEMA_VERSION, { error: `must be ${SCHEMA_VERSION}` }),
    correlationId: z.optional(guid),
    eventType: z.literal(eventType),
    payload: inboundPayloadSchemas[eventType],
  });
}

/** Strict schema of an envelope the partner sends: unknown keys are refused. */
export const inboundEnvelopeSchema = z.discriminatedUnion(
  'eventType',
  INBOUND_EVENT_TYPES.map(sentEnvelope) as unknown as [
    ReturnType<typeof sentEnvelope>,
    ...ReturnType<typeof sentEnvelope>[],
  ],
) as unknown as z.ZodMiniType<InboundEnvelope, unknown>;

/** Loose schema of an envelope the service delivers: unknown extra fields pass through. */
export const outboundEnvelopeSchema = z.discriminatedUnion(
  'eventType',
  OUTBOUND_EVENT_TYPES.map((eventType) => receivedEnvelopeSchemas[eventType]) as unknown as [
    (typeof receivedEnvelopeSchemas)[OutboundEventType],
    ...(typeof receivedEnvelopeSchemas)[OutboundEventType][],
  ],
) as unknown as z.ZodMiniType<OutboundEnvelope, unknown>;

/** The error envelope of every non-success response (section 2.4). */
export const errorEnvelopeSchema = z.looseObject({
  code: z.string(),
  message: z.string(),
  correlationId: z.optional(z.string()),
});
/** The body of every error answer of the service (and of this SDK's receiver). */
export type ErrorEnvelope = z.output<typeof errorEnvelopeSchema>;
