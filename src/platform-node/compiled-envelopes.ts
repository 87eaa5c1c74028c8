import type { OutboundEventType } from '../contract/event-types.js';
import { receivedEnvelopeSchemas } from '../contract/schemas/received-envelope.js';
import type { EnvelopeSchemaOf } from '../webhooks/parse-delivery.js';
import { compiler } from './compiled-schemas.js';

/** The receiver's envelope schemas, compiled (see `compiled-schemas.ts`). */
export const compiledEnvelopeSchema = compiler(
  (eventType: OutboundEventType) => receivedEnvelopeSchemas[eventType],
) as EnvelopeSchemaOf;
