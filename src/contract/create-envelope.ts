import { v7 } from 'uuid';
import { LoyaltyValidationError } from './errors.js';
import { EVENT_TYPES, type EventType } from './event-types.js';
import type { Envelope, PayloadInput, PayloadOf } from './schemas/envelope.js';
import { guid, utcTimestamp, uuidV7 } from './schemas/primitives.js';
import { SCHEMA_VERSION } from './schemas/received-envelope.js';
import { parsePayload } from './validate.js';

/** Envelope fields a caller may set; everything else is derived. */
export interface EnvelopeOptions {
  /** Reuse an id (a retry of an event built elsewhere). Default: a new UUIDv7. */
  eventId?: string;
  /** When the event happened at the source. A `Date` or an ISO 8601 UTC string. Default: now. */
  occurredAt?: Date | string;
  /** Optional GUID tying related events across systems. */
  correlationId?: string;
  /** Override the entity id inferred from the payload (see `EVENT_TYPES[type].entityIdField`). */
  entityId?: string;
}

// Random bytes drawn for 64 ids at a time: `v7()` alone asks the system for 16 bytes per id, about
// half of the SDK's own CPU per event (`npm run bench`, client). Given its bytes, `v7` keeps no
// clock or counter of its own, so they are kept here, as `v7()` keeps them.
const IDS_PER_DRAW = 64;
let randomPool = new Uint8Array(0);
let drawn = 0;
let lastMs = -Infinity;
let counter = 0;

/**
 * A new UUID version 7 event id (the `uuid` package's `v7`). Ids of one process sort in creation
 * order, also within one millisecond and when the clock steps back: the 32-bit counter starts at
 * a random value each millisecond and counts up within it; when the clock goes back, the last
 * millisecond is kept and the counter goes on.
 *
 * @example
 * ```ts
 * import { newEventId } from 'loyalty-partner-sdk';
 * newEventId(); // '019aa1f2-...-7...'
 * ```
 */
export function newEventId(): string {
  if (drawn === randomPool.length) {
    randomPool = globalThis.crypto.getRandomValues(new Uint8Array(16 * IDS_PER_DRAW));
    drawn = 0;
  }
  const random = randomPool.subarray(drawn, drawn + 16);
  drawn += 16;
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    counter = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    counter = (counter + 1) | 0;
    if (counter === 0) lastMs += 1;
  }
  return v7({ random, msecs: lastMs, seq: counter });
}

/**
 * Builds a complete, validated envelope: UUIDv7 `eventId`, `occurredAt` now (UTC), the
 * `entityType` and `entityId` of the event type, `sourceSystem` (`Partner` for the types the
 * partner sends, `Loyalty` for outbound types, which only the emulator and tests build) and
 * `schemaVersion: 1`. Payload defaults are applied. Throws `LoyaltyValidationError`.
 *
 * A batch carries the entity type of its items and, as `entityId`, the id of its first item.
 *
 * @example
 * ```ts
 * import { createEnvelope } from 'loyalty-partner-sdk';
 * const envelope = createEnvelope('CustomerSynced', { externalCustomerId: 'c-42', phone: '+966500000000' });
 * envelope.entityType; // 'Customer'
 * envelope.entityId; // 'c-42'
 * ```
 */
export function createEnvelope<T extends EventType>(
  eventType: T,
  payload: PayloadInput<T>,
  options: EnvelopeOptions = {},
): Envelope<T> {
  return envelopeOf(eventType, parsePayload(eventType, payload), options);
}

/**
 * `createEnvelope` after its first step, for a payload already parsed by `parsePayload` (the
 * client and the outbox parse first, then build with their own clock).
 */
export function envelopeOf<T extends EventType>(
  eventType: T,
  parsed: PayloadOf<T>,
  options: EnvelopeOptions,
): Envelope<T> {
  const info = EVENT_TYPES[eventType];
  const issues = [];

  const eventId = options.eventId ?? newEventId();
  // The partner's envelopes require a UUIDv7 (spec 2.1, and the strict inbound schema); only the
  // emulator's outbound envelopes may carry any GUID.
  const eventIdFormat = info.direction === 'inbound' ? uuidV7 : guid;
  if (options.eventId !== undefined && !eventIdFormat.safeParse(options.eventId).success) {
    issues.push({ path: 'eventId', message: 'must be a UUID version 7 (use newEventId())' });
  }
  // An invalid Date (new Date('garbage')) is refused like a bad string, not by toISOString's RangeError.
  const occurredAt =
    options.occurredAt instanceof Date
      ? Number.isNaN(options.occurredAt.getTime())
        ? 'Invalid Date'
        : options.occurredAt.toISOString()
      : (options.occurredAt ?? new Date().toISOString());
  // Only a caller's value needs checking: `toISOString()` of now always matches.
  if (options.occurredAt !== undefined && !utcTimestamp.safeParse(occurredAt).success) {
    issues.push({ path: 'occurredAt', message: 'must be a valid Date or an ISO 8601 UTC timestamp' });
  }
  if (options.correlationId !== undefined && !guid.safeParse(options.correlationId).success) {
    issues.push({ path: 'correlationId', message: 'must be a GUID' });
  }
  const entityId = options.entityId ?? inferEntityId(info.entityIdField, parsed);
  if (!entityId) {
    issues.push({ path: 'entityId', message: `cannot be inferred for ${eventType}; pass options.entityId` });
  }
  if (issues.length > 0) {
    throw new LoyaltyValidationError('INVALID_PAYLOAD', `Invalid ${eventType} envelope options`, issues, {
      eventType,
    });
  }

  const envelope: Record<string, unknown> = {
    eventId,
    occurredAt,
    entityType: info.entityType,
    entityId,
    sourceSystem: info.direction === 'inbound' ? 'Partner' : 'Loyalty',
    schemaVersion: SCHEMA_VERSION,
  };
  if (options.correlationId !== undefined) envelope.correlationId = options.correlationId;
  envelope.eventType = eventType;
  envelope.payload = parsed;
  return envelope as unknown as Envelope<T>;
}

function inferEntityId(field: string | null, payload: unknown): string | undefined {
  if (field === null) return undefined;
  const record = payload as Record<string, unknown> & { items?: Record<string, unknown>[] };
  const source = Array.isArray(record.items) ? record.items[0] : record;
  const value = source?.[field];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
