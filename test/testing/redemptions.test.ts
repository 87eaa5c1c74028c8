import { EmulatorError } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { deliveredOnceIdle, earn, emulatorPerTest, readyMerchant } from './helpers.js';

describe('redemptions (spec 3.6)', () => {
  const start = emulatorPerTest({ clock: 'manual', redemptionTtlMs: 10 * 60_000 });

  /** A started emulator whose merchant's customer holds 10 points, 4 of them in a pending redemption. */
  const redeemable = async () => {
    const { emulator, url, receiver } = await start();
    const m = await readyMerchant(emulator, url, { receiverUrl: receiver.url });
    await m.partner.post('InvoiceEarned', earn('inv-1', 100));
    const redemptionId = emulator.createRedemption(m.tenantId, {
      externalCustomerId: 'cust-1001',
      points: 4,
    });
    return { emulator, receiver, m: { ...m, redemptionId } };
  };

  it('drops a pending redemption with reason Expired when its time runs out, releasing its points', async () => {
    const { emulator, m } = await redeemable();
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(6);
    await emulator.advance(10 * 60_000 - 1);
    expect(emulator.merchant(m.tenantId).redemptions[0]?.status).toBe('Pending');
    await emulator.advance(1);
    expect(emulator.merchant(m.tenantId).redemptions[0]).toMatchObject({
      status: 'Dropped',
      reason: 'Expired',
    });
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(10);
  });

  it('drops a pending redemption with reason Cancelled when staff cancel it', async () => {
    const { emulator, m } = await redeemable();
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(emulator.merchant(m.tenantId).redemptions[0]).toMatchObject({
      status: 'Dropped',
      reason: 'Cancelled',
    });
    expect(() => emulator.cancelRedemption(m.tenantId, m.redemptionId)).toThrow(EmulatorError);
  });

  it('does not emit RedemptionExpiredOrCancelled, which is Planned, until it ships', async () => {
    const { emulator, receiver, m } = await redeemable();
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(await deliveredOnceIdle(emulator, receiver, 'RedemptionExpiredOrCancelled')).toEqual([]);
    emulator.shipHandler('RedemptionExpiredOrCancelled');
    const second = emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 2 });
    await emulator.advance(10 * 60_000);
    expect(
      (await deliveredOnceIdle(emulator, receiver, 'RedemptionExpiredOrCancelled')).map((e) => e.payload),
    ).toEqual([{ redemptionId: second, externalInvoiceId: null, reason: 'Expired' }]);
  });

  it('refuses a redemption of more points than the customer holds', async () => {
    const { emulator, m } = await redeemable();
    expect(() =>
      emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 7 }),
    ).toThrow(/fewer than 7/);
  });
});
