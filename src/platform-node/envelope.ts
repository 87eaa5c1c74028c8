import { envelopeOf, type createEnvelope as webCreateEnvelope } from '../contract/create-envelope.js';
import { parsePayloadWith, type parsePayload as webParsePayload } from '../contract/validate.js';
import { compiledPayloadSchema } from './compiled-schemas.js';

/**
 * Builds a complete, validated envelope: UUIDv7 `eventId`, `occurredAt` now (UTC), the
 * `entityType` and `entityId` of the event type, `sourceSystem` and `schemaVersion: 1`, payload
 * defaults applied. The same result and errors as the Web build's `createEnvelope`; the payload
 * is validated with the schema zod compiled (`compiled-schemas.ts`). Throws
 * `LoyaltyValidationError`.
 *
 * @example
 * ```ts
 * import { createEnvelope } from 'loyalty-partner-sdk';
 * const envelope = createEnvelope('CustomerSynced', { externalCustomerId: 'c-42', phone: '+966500000000' });
 * envelope.entityId; // 'c-42'
 * ```
 */
export const createEnvelope: typeof webCreateEnvelope = (eventType, payload, options = {}) =>
  envelopeOf(eventType, parsePayload(eventType, payload), options);

/**
 * Validates a payload against its event type's schema and returns it with defaults applied.
 * Throws `LoyaltyValidationError` with the path of every field at fault. The same result and
 * errors as the Web build's `parsePayload`, with the schema zod compiled.
 *
 * @example
 * ```ts
 * import { parsePayload } from 'loyalty-partner-sdk';
 * const product = parsePayload('ProductSynced', { externalProductId: 'p-1', name: 'Latte', price: 14 });
 * product.isActive; // true (the contract's default)
 * ```
 */
export const parsePayload: typeof webParsePayload = (eventType, payload) =>
  parsePayloadWith(compiledPayloadSchema, eventType, payload);
