import { branchSchema, couponSchema, customerSchema, productSchema } from './entities.js';
import {
  errorEnvelopeSchema,
  inboundEnvelopeSchema,
  outboundEnvelopeSchema,
  payloadSchemas,
} from './envelope.js';
import { earnRateSchema, loyaltyRuleChangedSchema, stampRuleSchema } from './outbound-payloads.js';
import { receivedEnvelopeHeaderSchema } from './received-envelope.js';

/**
 * The zod schemas of the contract, for callers who validate on their own (a form, a queue
 * consumer, a test). `payloads[eventType]` validates one payload.
 *
 * @example
 * ```ts
 * import { schemas } from 'loyalty-partner-sdk';
 * const ok = schemas.payloads.CouponUsed.safeParse({ externalCouponId: 'k', externalCustomerId: 'c', externalInvoiceId: 'i' }).success;
 * ```
 */
export const schemas = {
  /** Envelope the partner sends (strict). */
  envelope: inboundEnvelopeSchema,
  /** Envelope the service delivers to the receiver (loose: unknown fields pass). */
  outboundEnvelope: outboundEnvelopeSchema,
  /** Envelope fields only, payload unjudged: how a receiver recognises an unknown event type. */
  envelopeHeader: receivedEnvelopeHeaderSchema,
  errorEnvelope: errorEnvelopeSchema,
  payloads: payloadSchemas,
  entities: { branch: branchSchema, customer: customerSchema, product: productSchema, coupon: couponSchema },
  rules: {
    loyaltyRuleChanged: loyaltyRuleChangedSchema,
    earnRate: earnRateSchema,
    stampRule: stampRuleSchema,
  },
} as const;
