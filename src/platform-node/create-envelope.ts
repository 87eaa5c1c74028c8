import { type EnvelopeOptions, envelopeOf } from '../contract/create-envelope.js';
import type { EventType } from '../contract/event-types.js';
import type { Envelope, PayloadInput } from '../contract/schemas/envelope.js';
import { parsePayloadCompiled } from './compiled-payloads.js';

/**
 * Builds a complete, validated envelope: UUIDv7 `eventId`, `occurredAt` now (UTC), the
 * `entityType` and `entityId` of the event type, `sourceSystem` (`Partner` for the types the
 * partner sends, `Loyalty` for outbound types, which only the emulator and tests build) and
 * `schemaVersion: 1`. Payload defaults are applied. Throws `LoyaltyValidationError`.
 *
 * A batch carries the entity type of its items and, as `entityId`, the id of its first item.
 *
 * This is the `node` export condition's: the same envelope and the same refusals, with the payload
 * checked by the contract's schema compiled by zod (`compiled-payloads.ts`, as the Node client's
 * `send` does). The interpreted parse was about half of the SDK's own CPU per event (envelope,
 * validation, JSON, signature; `npm run bench`, client). A payload the compiled schema refuses is
 * parsed again by `parsePayload`, so errors read the same.
 *
 * @example
 * ```ts
 * import { createEnvelope } from 'loyalty-partner-sdk';
 * const envelope = createEnvelope('CustomerSynced', { externalCustomerId: 'c-42', phone: '+966500000000' });
 * envelope.entityId; // 'c-42'
 * ```
 */
export function createEnvelope<T extends EventType>(
  eventType: T,
  payload: PayloadInput<T>,
  options: EnvelopeOptions = {},
): Envelope<T> {
  return envelopeOf(eventType, parsePayloadCompiled(eventType, payload), options);
}
