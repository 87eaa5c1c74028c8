import { describe, expect, it } from 'vitest';
import { causalKeys } from '../../src/outbox/causal-keys.js';
import { conflicts } from './fixtures/conflicts.js';

const keys = (eventType: string, payload: unknown) => causalKeys({ eventType, payload });

describe('causalKeys', () => {
  it('says a sale needs its branch and changes its customer and invoice', () => {
    const sale = { externalInvoiceId: 'i-9', externalCustomerId: 'c-1', externalBranchId: 'b-1' };
    expect(keys('InvoiceEarned', sale)).toEqual({
      changes: ['Customer:c-1', 'Invoice:i-9'],
      needs: ['Branch:b-1'],
    });
  });

  it('says a coupon use needs its coupon, and its cancellation changes the same invoice', () => {
    const use = keys('CouponUsed', {
      externalCouponId: 'k-1',
      externalCustomerId: 'c-1',
      externalInvoiceId: 'i-9',
    });
    const cancel = keys('CouponUsageCancelled', { externalCouponId: 'k-1', externalInvoiceId: 'i-9' });
    expect(use).toEqual({ changes: ['Customer:c-1', 'Invoice:i-9'], needs: ['Coupon:k-1'] });
    expect(cancel).toEqual({ changes: ['Invoice:i-9'], needs: ['Coupon:k-1'] });
    expect(conflicts(use, cancel)).toBe(true);
  });

  it('says a refund changes the original invoice and its own', () => {
    const refund = { externalInvoiceId: 'r-1', externalOriginalInvoiceId: 'i-9', refundedAmount: 1 };
    expect(keys('InvoiceRefunded', refund)).toEqual({ changes: ['Invoice:i-9', 'Invoice:r-1'], needs: [] });
  });

  it('says a batch changes the entity of every item', () => {
    const batch = { items: [{ externalCustomerId: 'c-2' }, { externalCustomerId: 'c-1' }] };
    expect(keys('CustomersSyncedBatch', batch)).toEqual({
      changes: ['Customer:c-1', 'Customer:c-2'],
      needs: [],
    });
  });

  it('names every inbound type and no outbound one', () => {
    expect(keys('CustomerSynced', { externalCustomerId: 'c-1' }).changes).toEqual(['Customer:c-1']);
    expect(keys('LoyaltyRuleChanged', { externalStoreId: 's' })).toEqual({ changes: [], needs: [] });
  });
});

describe('EarlierKeys', () => {
  const sale = (customer: string, branch: string) => ({
    changes: [`Customer:${customer}`],
    needs: [`Branch:${branch}`],
  });

  it('lets two sales at the same branch for different customers pass each other', () => {
    expect(conflicts(sale('c-1', 'b-1'), sale('c-2', 'b-1'))).toBe(false);
  });

  it('keeps a customer sync and that customer sale in order, both ways round', () => {
    const sync = { changes: ['Customer:c-1'], needs: [] };
    expect(conflicts(sync, sale('c-1', 'b-1'))).toBe(true);
    expect(conflicts(sale('c-1', 'b-1'), sync)).toBe(true);
  });

  it('orders a branch sync before a sale that needs the branch', () => {
    expect(conflicts({ changes: ['Branch:b-1'], needs: [] }, sale('c-1', 'b-1'))).toBe(true);
    expect(conflicts(sale('c-1', 'b-1'), { changes: ['Branch:b-1'], needs: [] })).toBe(true);
  });
});
