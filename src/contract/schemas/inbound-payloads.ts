import * as z from 'zod/mini';
import { branchSchema, couponSchema, customerSchema, productSchema } from './entities.js';
import { amount, fieldIssue, id } from './primitives.js';

/**
 * The contract's limit on items per batch event (section 8). `client.syncBatch` splits longer
 * lists into batches of this size.
 */
export const MAX_BATCH_ITEMS = 500;

/** InvoiceEarned (6.2): `stampCardId` is required exactly when `earnType` is `Stamps`. */
export const invoiceEarnedSchema = z
  .strictObject({
    externalInvoiceId: id,
    externalCustomerId: id,
    externalBranchId: id,
    subtotalAfterDiscountBeforeVat: amount,
    earnType: z.enum(['Points', 'Stamps']),
    stampCardId: z._default(z.nullable(id), null),
    channel: z.enum(['Pos', 'Kiosk']),
  })
  // A rule in a callback: its JSON Schema form is in json-schema-overrides.ts.
  .check((ctx) => {
    const { earnType, stampCardId } = ctx.value;
    if (earnType === 'Stamps' && stampCardId === null) {
      fieldIssue(ctx, 'stampCardId', 'is required when earnType is Stamps');
    }
    if (earnType === 'Points' && stampCardId !== null) {
      fieldIssue(ctx, 'stampCardId', 'must be null or omitted when earnType is Points');
    }
  });

/** InvoiceRefunded (6.2, Planned). `isOverride` defaults to `false`. */
export const invoiceRefundedSchema = z.strictObject({
  externalInvoiceId: id,
  externalOriginalInvoiceId: id,
  refundedAmount: amount,
  isOverride: z._default(z.boolean({ error: 'must be true or false' }), false),
});

/** CouponUsed (6.3). */
export const couponUsedSchema = z.strictObject({
  externalCouponId: id,
  externalCustomerId: id,
  externalInvoiceId: id,
});

/** CouponUsageCancelled (6.3). */
export const couponUsageCancelledSchema = z.strictObject({
  externalCouponId: id,
  externalInvoiceId: id,
});

function batchOf<T extends z.ZodMiniType>(item: T) {
  return z.strictObject({
    items: z.array(item).check(
      z.minLength(1, { error: 'must hold at least one item' }),
      z.maxLength(MAX_BATCH_ITEMS, {
        error: `must hold at most ${MAX_BATCH_ITEMS} items (client.syncBatch splits larger lists)`,
      }),
    ),
  });
}

/** Payload schemas of the 12 event types the partner sends. */
export const inboundPayloadSchemas = {
  InvoiceEarned: invoiceEarnedSchema,
  InvoiceRefunded: invoiceRefundedSchema,
  CouponUsed: couponUsedSchema,
  CouponUsageCancelled: couponUsageCancelledSchema,
  BranchSynced: branchSchema,
  CustomerSynced: customerSchema,
  ProductSynced: productSchema,
  CouponSynced: couponSchema,
  BranchesSyncedBatch: batchOf(branchSchema),
  CustomersSyncedBatch: batchOf(customerSchema),
  ProductsSyncedBatch: batchOf(productSchema),
  CouponsSyncedBatch: batchOf(couponSchema),
} as const;
