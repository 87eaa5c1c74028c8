import { type Emulator, EmulatorError } from 'loyalty-partner-sdk/testing';
import { describe, expect } from 'vitest';
import { delivered, earn, emulatorTest as it, type Receiver, readyMerchant } from './helpers.js';

describe('redemptions (spec 3.6)', () => {
  it.scoped({ emulatorOptions: { clock: 'manual', redemptionTtlMs: 10 * 60_000 } });

  const redeemable = async (emulator: Emulator, url: string, receiver: Receiver) => {
    const m = await readyMerchant(emulator, url, { receiverUrl: receiver.url });
    await m.partner.post('InvoiceEarned', earn('inv-1', 100));
    const redemptionId = emulator.createRedemption(m.tenantId, {
      externalCustomerId: 'cust-1001',
      points: 4,
    });
    return { ...m, redemptionId };
  };
  const sent = async (emulator: Emulator, receiver: Receiver) => {
    await emulator.idle();
    return delivered(receiver, 'RedemptionExpiredOrCancelled');
  };

  it('drops a pending redemption with reason Expired when its time runs out, releasing its points', async ({
    emulator,
    url,
    receiver,
  }) => {
    const m = await redeemable(emulator, url, receiver);
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

  it('drops a pending redemption with reason Cancelled when staff cancel it', async ({
    emulator,
    url,
    receiver,
  }) => {
    const m = await redeemable(emulator, url, receiver);
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(emulator.merchant(m.tenantId).redemptions[0]).toMatchObject({
      status: 'Dropped',
      reason: 'Cancelled',
    });
    expect(() => emulator.cancelRedemption(m.tenantId, m.redemptionId)).toThrow(EmulatorError);
  });

  it('does not emit RedemptionExpiredOrCancelled, which is Planned, until it ships', async ({
    emulator,
    url,
    receiver,
  }) => {
    const m = await redeemable(emulator, url, receiver);
    emulator.cancelRedemption(m.tenantId, m.redemptionId);
    expect(await sent(emulator, receiver)).toEqual([]);
    emulator.shipHandler('RedemptionExpiredOrCancelled');
    const second = emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 2 });
    await emulator.advance(10 * 60_000);
    expect((await sent(emulator, receiver)).map((e) => e.payload)).toEqual([
      { redemptionId: second, externalInvoiceId: null, reason: 'Expired' },
    ]);
  });

  it('refuses a redemption of more points than the customer holds', async ({ emulator, url, receiver }) => {
    const m = await redeemable(emulator, url, receiver);
    expect(() =>
      emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 7 }),
    ).toThrow(/fewer than 7/);
  });
});
