import type { InboundEventType, PayloadOf } from '../contract/index.js';
import { earnInvoice } from './earn-engine.js';
import {
  cancelCouponUsage,
  syncBranch,
  syncCoupon,
  syncCustomer,
  syncProduct,
  useCoupon,
} from './entity-sync.js';
import type { HandlerResult } from './http-reply.js';
import type { MerchantRecord } from './merchant.js';
import type { Emit } from './outbound-events.js';
import { reverseEarn } from './refunds.js';

/** What a handler gets: the merchant (from the API key), the parsed payload, and the service's time. */
export interface HandlerContext<T extends InboundEventType> {
  merchant: MerchantRecord;
  payload: PayloadOf<T>;
  eventId: string;
  /** The correlation id of the envelope, or of the request: outbound follow-ups carry it. */
  correlationId: string;
  now: number;
  emit: Emit;
}

const done: HandlerResult = { ok: true };

function each<T>(items: readonly T[], apply: (item: T) => void): HandlerResult {
  for (const item of items) apply(item);
  return done;
}

/**
 * The business handler of every inbound event type, typed by name so a type added to the
 * catalogue fails to compile here until it has one. Handlers are synchronous: nothing can run
 * between the dedup-cache lookup and the cache write, so one `eventId` is never handled twice.
 * Whether a Planned type may run is decided before, from `EVENT_TYPES`.
 */
export const EVENT_HANDLERS: { [K in InboundEventType]: (ctx: HandlerContext<K>) => HandlerResult } = {
  InvoiceEarned: (c) => earnInvoice(c.merchant, c.payload, c.eventId, c.now),
  InvoiceRefunded: (c) => {
    const { outcome, repeated } = reverseEarn(c.merchant, c.payload, c.eventId, c.now);
    if (!repeated) {
      const { externalOriginalInvoiceId: _original, ...payload } = outcome;
      c.emit(c.merchant, 'RefundReversalCompleted', payload, { correlationId: c.correlationId });
    }
    return done;
  },
  CouponUsed: (c) => each([c.payload], (usage) => useCoupon(c.merchant, usage)),
  CouponUsageCancelled: (c) => each([c.payload], (usage) => cancelCouponUsage(c.merchant, usage)),
  BranchSynced: (c) => each([c.payload], (branch) => syncBranch(c.merchant, branch)),
  CustomerSynced: (c) => each([c.payload], (customer) => syncCustomer(c.merchant, customer)),
  ProductSynced: (c) => each([c.payload], (product) => syncProduct(c.merchant, product)),
  CouponSynced: (c) => each([c.payload], (coupon) => syncCoupon(c.merchant, coupon)),
  BranchesSyncedBatch: (c) => each(c.payload.items, (branch) => syncBranch(c.merchant, branch)),
  CustomersSyncedBatch: (c) => each(c.payload.items, (customer) => syncCustomer(c.merchant, customer)),
  ProductsSyncedBatch: (c) => each(c.payload.items, (product) => syncProduct(c.merchant, product)),
  CouponsSyncedBatch: (c) => each(c.payload.items, (coupon) => syncCoupon(c.merchant, coupon)),
};
