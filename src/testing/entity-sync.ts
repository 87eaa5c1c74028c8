import type { PayloadOf } from '../contract/index.js';
import type { MerchantRecord } from './merchant.js';

/**
 * The sync and coupon-usage events: each creates or updates one mapping of the merchant. A
 * resync never undoes what the merchant did in the dashboard (a confirmed branch stays
 * confirmed, a frozen customer stays frozen).
 */
export function syncBranch(merchant: MerchantRecord, branch: PayloadOf<'BranchSynced'>): void {
  const known = merchant.branches.get(branch.externalBranchId);
  merchant.branches.set(branch.externalBranchId, {
    ...branch,
    confirmed: known?.confirmed ?? merchant.autoConfirmBranches,
  });
}

/** Creates or updates a customer mapping; a new one gets the service's own `customerId`. */
export function syncCustomer(merchant: MerchantRecord, customer: PayloadOf<'CustomerSynced'>): void {
  const known = merchant.customers.get(customer.externalCustomerId);
  const customerId = known?.customerId ?? `lc-${merchant.tenantId}-${++merchant.customerSeq}`;
  // The phone the customer had stops finding them (unless another customer took it since).
  if (known && merchant.customersByPhone.get(known.phone) === known.externalCustomerId)
    merchant.customersByPhone.delete(known.phone);
  merchant.customersByPhone.set(customer.phone, customer.externalCustomerId);
  merchant.customersById.set(customerId, customer.externalCustomerId);
  merchant.customers.set(customer.externalCustomerId, {
    customerId,
    ...customer,
    frozen: known?.frozen ?? false,
  });
}

/** A product with `isActive: false` is inactive: rewards mapped to it become unmappable (spec 3.5). */
export function syncProduct(merchant: MerchantRecord, product: PayloadOf<'ProductSynced'>): void {
  merchant.products.set(product.externalProductId, { ...product });
}

export function syncCoupon(merchant: MerchantRecord, coupon: PayloadOf<'CouponSynced'>): void {
  merchant.coupons.set(coupon.externalCouponId, { ...coupon });
}

const usageKey = (couponId: string, invoiceId: string) => `${couponId}\u0000${invoiceId}`;

/** Unused -> used on an invoice (spec 3.4). Posting the same usage again changes nothing. */
export function useCoupon(merchant: MerchantRecord, usage: PayloadOf<'CouponUsed'>): void {
  const key = usageKey(usage.externalCouponId, usage.externalInvoiceId);
  if (merchant.couponUsages.get(key)?.status === 'Used') return;
  merchant.couponUsages.set(key, { ...usage, status: 'Used' });
}

/** Used on an invoice -> usage reversed (spec 3.4). Cancelling a usage never recorded records it as cancelled. */
export function cancelCouponUsage(merchant: MerchantRecord, usage: PayloadOf<'CouponUsageCancelled'>): void {
  const key = usageKey(usage.externalCouponId, usage.externalInvoiceId);
  const known = merchant.couponUsages.get(key);
  merchant.couponUsages.set(key, {
    externalCouponId: usage.externalCouponId,
    externalInvoiceId: usage.externalInvoiceId,
    externalCustomerId: known?.externalCustomerId ?? null,
    status: 'Cancelled',
  });
}
