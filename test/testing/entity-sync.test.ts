import { samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { emulatorPerTest, partner } from './helpers.js';

describe('coupons, products, branches and customers (spec 3.4, 3.5, 6.3, 6.4)', () => {
  const start = emulatorPerTest();

  it('marks an unused coupon used on an invoice on CouponUsed', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    await partner(url, m).post('CouponUsed', samplePayload('CouponUsed'));
    expect(emulator.merchant(m.tenantId).couponUsages).toEqual([
      {
        externalCouponId: 'coupon-10off',
        externalInvoiceId: 'inv-5001',
        externalCustomerId: 'cust-1001',
        status: 'Used',
      },
    ]);
  });

  it('reverses a coupon usage on CouponUsageCancelled', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const p = partner(url, m);
    await p.post('CouponUsed', samplePayload('CouponUsed'));
    await p.post('CouponUsageCancelled', samplePayload('CouponUsageCancelled'));
    expect(emulator.merchant(m.tenantId).couponUsages.map((u) => u.status)).toEqual(['Cancelled']);
  });

  it('makes an active product inactive on ProductSynced with isActive false', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const p = partner(url, m);
    const { isActive: _omitted, ...withoutIsActive } = samplePayload('ProductSynced');
    await p.post('ProductSynced', withoutIsActive);
    const active = emulator.merchant(m.tenantId).products[0];
    await p.post('ProductSynced', { ...withoutIsActive, isActive: false });
    expect(active?.isActive).toBe(true);
    expect(emulator.merchant(m.tenantId).products).toEqual([{ ...withoutIsActive, isActive: false }]);
  });

  it('stores coupons with isLoyaltyProgramCoupon defaulting to false', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const { isLoyaltyProgramCoupon: _omitted, ...coupon } = samplePayload('CouponSynced');
    await partner(url, m).post('CouponSynced', coupon);
    expect(emulator.merchant(m.tenantId).coupons).toEqual([{ ...coupon, isLoyaltyProgramCoupon: false }]);
  });

  it('keeps a branch confirmed and a customer frozen across a resync', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const p = partner(url, m);
    await p.post('BranchSynced', samplePayload('BranchSynced'));
    await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.confirmBranch(m.tenantId, 'branch-olaya');
    emulator.freezeCustomer(m.tenantId, 'cust-1001');
    await p.post('BranchSynced', { ...samplePayload('BranchSynced'), name: 'Olaya 2' });
    await p.post('CustomerSynced', { ...samplePayload('CustomerSynced'), firstName: 'Nora' });
    const state = emulator.merchant(m.tenantId);
    expect(state.branches).toEqual([
      { externalBranchId: 'branch-olaya', name: 'Olaya 2', isActive: true, confirmed: true },
    ]);
    expect(state.customers[0]).toMatchObject({ firstName: 'Nora', frozen: true });
  });

  it('confirms branches on sync for a merchant created with autoConfirmBranches', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant({ autoConfirmBranches: true });
    await partner(url, m).post('BranchSynced', samplePayload('BranchSynced'));
    expect(emulator.merchant(m.tenantId).branches[0]?.confirmed).toBe(true);
  });

  it('refuses to confirm a branch that was never synced', async () => {
    const { emulator } = await start();
    const m = emulator.createMerchant();
    expect(() => emulator.confirmBranch(m.tenantId, 'branch-nowhere')).toThrow(/branch-nowhere/);
  });
});

describe('customer lookup (spec 4.3)', () => {
  const start = emulatorPerTest();

  it('finds a customer by phone or by the service customerId, with the balances', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const p = partner(url, m);
    await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    const byPhone = await p.get('/customers/lookup?phone=%2B966500000001');
    const byId = await p.get(`/customers/lookup?customerId=${byPhone.body.customer.customerId}`);
    expect(byPhone.body).toEqual({
      customer: {
        customerId: expect.any(String),
        externalCustomerId: 'cust-1001',
        phone: '+966500000001',
        firstName: 'Noura',
        lastName: 'Saleh',
        isActive: true,
      },
      balance: { points: 0, stamps: {} },
    });
    expect(byId.body).toEqual(byPhone.body);
  });

  it('answers customer: null for nobody, and INVALID_REQUEST for neither key', async () => {
    const { emulator, url } = await start();
    const p = partner(url, emulator.createMerchant());
    const nobody = await p.get('/customers/lookup?phone=%2B966599999999');
    const neither = await p.get('/customers/lookup');
    expect([nobody.status, nobody.body]).toEqual([200, { customer: null, balance: null }]);
    expect([neither.status, neither.body.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  it('verifies a signature when one is sent on a GET', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const signed = await partner(url, m).get('/connection', { secret: m.signingSecret });
    const forged = await partner(url, m).get('/connection', { secret: 'whsec_wrong' });
    expect(signed.status).toBe(200);
    expect([forged.status, forged.body.code]).toEqual([401, 'INVALID_SIGNATURE']);
  });
});
