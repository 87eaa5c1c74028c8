import * as z from 'zod/mini';
import { amount, fieldIssue, id, text } from './primitives.js';

/**
 * Entity shapes of spec section 2.2, used by the single and batch sync events. They are strict:
 * an unknown key is almost always a misspelt field, and refusing it locally beats the service
 * silently ignoring it.
 */
export const branchSchema = z.strictObject({
  externalBranchId: id,
  name: id,
  isActive: z.boolean({ error: 'must be true or false' }),
});

/** Customer shape; `firstName` and `lastName` are optional. */
export const customerSchema = z.strictObject({
  externalCustomerId: id,
  phone: id,
  firstName: z.optional(text),
  lastName: z.optional(text),
});

/** Product shape; `isActive` defaults to `true` when omitted (send `false` when deleted). */
export const productSchema = z.strictObject({
  externalProductId: id,
  name: id,
  price: amount,
  isActive: z._default(z.boolean({ error: 'must be true or false' }), true),
});

/** Coupon shape; `isLoyaltyProgramCoupon` defaults to `false`. */
export const couponSchema = z
  .strictObject({
    externalCouponId: id,
    name: id,
    discountType: z.enum(['FixedAmount', 'Percentage']),
    discountValue: amount,
    isLoyaltyProgramCoupon: z._default(z.boolean({ error: 'must be true or false' }), false),
  })
  // A rule in a callback: its JSON Schema form is in json-schema-overrides.ts.
  .check((ctx) => {
    // A percentage above 100 would give more than the invoice is worth: a data-entry slip.
    if (ctx.value.discountType === 'Percentage' && ctx.value.discountValue > 100) {
      fieldIssue(ctx, 'discountValue', 'must be at most 100 when discountType is Percentage');
    }
  });
