import type { EventType, PayloadInput } from '../contract/index.js';
import { DEFAULT_RULES } from './rules.js';

/**
 * One valid payload for each of the 16 event types, for tests and demos. Each call returns fresh
 * objects, so a test may mutate what it gets.
 *
 * @example
 * ```ts
 * import { samplePayload } from 'loyalty-partner-sdk/testing';
 * const payload = samplePayload('InvoiceEarned');
 * payload.externalInvoiceId = 'inv-2';
 * ```
 */
export function samplePayload<T extends EventType>(eventType: T): PayloadInput<T> {
  return structuredClone(SAMPLES[eventType]) as PayloadInput<T>;
}

const branch = { externalBranchId: 'branch-olaya', name: 'Olaya', isActive: true };
const customer = {
  externalCustomerId: 'cust-1001',
  phone: '+966500000001',
  firstName: 'Noura',
  lastName: 'Saleh',
};
const product = { externalProductId: 'prod-latte', name: 'Latte', price: 14.5, isActive: true };
const coupon = {
  externalCouponId: 'coupon-10off',
  name: '10 off',
  discountType: 'FixedAmount',
  discountValue: 10,
  isLoyaltyProgramCoupon: false,
} as const;

const SAMPLES: { [K in EventType]: PayloadInput<K> } = {
  InvoiceEarned: {
    externalInvoiceId: 'inv-5001',
    externalCustomerId: 'cust-1001',
    externalBranchId: 'branch-olaya',
    subtotalAfterDiscountBeforeVat: 86.96,
    earnType: 'Points',
    stampCardId: null,
    channel: 'Pos',
  },
  InvoiceRefunded: {
    externalInvoiceId: 'inv-5001-r1',
    externalOriginalInvoiceId: 'inv-5001',
    refundedAmount: 86.96,
    isOverride: false,
  },
  CouponUsed: {
    externalCouponId: 'coupon-10off',
    externalCustomerId: 'cust-1001',
    externalInvoiceId: 'inv-5001',
  },
  CouponUsageCancelled: { externalCouponId: 'coupon-10off', externalInvoiceId: 'inv-5001' },
  BranchSynced: branch,
  CustomerSynced: customer,
  ProductSynced: product,
  CouponSynced: coupon,
  BranchesSyncedBatch: { items: [branch, { ...branch, externalBranchId: 'branch-malqa', name: 'Malqa' }] },
  CustomersSyncedBatch: { items: [customer, { externalCustomerId: 'cust-1002', phone: '+966500000002' }] },
  ProductsSyncedBatch: { items: [product, { externalProductId: 'prod-mocha', name: 'Mocha', price: 16 }] },
  CouponsSyncedBatch: {
    items: [{ externalCouponId: 'coupon-5pc', name: '5%', discountType: 'Percentage', discountValue: 5 }],
  },
  RefundReversalCompleted: {
    externalInvoiceId: 'inv-5001-r1',
    status: 'Reversed',
    pointsReversed: 8,
    stampsReversed: null,
    newBalance: 120,
  },
  LoyaltyRuleChanged: {
    externalStoreId: 'store-7',
    ruleType: 'EarnRate',
    ruleVersion: 4,
    effectiveFrom: '2026-11-20T00:00:00Z',
    // The emulator's default earn rate (1 point per 10 riyals), so a sample rule change matches it.
    payload: { ...DEFAULT_RULES.earnRate },
  },
  RedemptionExpiredOrCancelled: { redemptionId: 'red-77', externalInvoiceId: null, reason: 'Expired' },
  IntegrationStatusChanged: { status: 'Enabled' },
};
