import { type Emulator, EmulatorError } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { delivered, earn, readyMerchant, startEmulator, startReceiver } from './helpers.js';

describe('redemptions (spec 3.6)', () => {
  let emulator: Emulator;
  let url: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeEach(async () => {
    ({ emulator, url } = await startEmulator({ clock: 'manual', redemptionTtlMs: 10 * 60_000 }));
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await emulator.close();
    await receiver.close();
  });

  const redeemable = async () => {
    const m = await readyMerchant(emulator, url, { receiverUrl: receiver.url });
    await m.partner.post('InvoiceEarned', earn('inv-1', 100));
    const redemptionId = emulator.createRedemption(m.tenantId, {
      externalCustomerId: 'cust-1001',
      points: 4,
    });
    return { ...m, redemptionId };
  };
  const sent = () => delivered(emulator, receiver, 'RedemptionExpiredOrCancelled');

  it('drops a pending redemption with reason Expired when its time runs out, releasing its points', async () => {
    const m = await redeemable();
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
    const m = await redeemable();
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(emulator.merchant(m.tenantId).redemptions[0]).toMatchObject({
      status: 'Dropped',
      reason: 'Cancelled',
    });
    expect(() => emulator.cancelRedemption(m.tenantId, m.redemptionId)).toThrow(EmulatorError);
  });

  it('does not emit RedemptionExpiredOrCancelled, which is Planned, until it ships', async () => {
    const m = await redeemable();
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(await sent()).toEqual([]);
    emulator.shipHandler('RedemptionExpiredOrCancelled');
    const second = emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 2 });
    await emulator.advance(10 * 60_000);
    expect((await sent()).map((e) => e.payload)).toEqual([
      { redemptionId: second, externalInvoiceId: null, reason: 'Expired' },
    ]);
  });

  it('refuses a redemption of more points than the customer holds', async () => {
    const m = await redeemable();
    expect(() =>
      emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 7 }),
    ).toThrow(/fewer than 7/);
  });
});
