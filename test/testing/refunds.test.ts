import { samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { deliveredOnceIdle, earn, emulatorPerTest, readyMerchant } from './helpers.js';

const refund = (original: string, refundedAmount: number, isOverride = false) => ({
  ...samplePayload('InvoiceRefunded'),
  externalInvoiceId: `${original}-r`,
  externalOriginalInvoiceId: original,
  refundedAmount,
  isOverride,
});

describe('invoice refund once its handler ships (spec 3.3, 6.2)', () => {
  const start = emulatorPerTest();

  /** A started emulator with a ready merchant whose webhooks go to a receiver, and its refund outcomes. */
  const merchant = async () => {
    const { emulator, url, receiver } = await start();
    const m = await readyMerchant(emulator, url, { receiverUrl: receiver.url });
    const outcomes = () => deliveredOnceIdle(emulator, receiver, 'RefundReversalCompleted');
    return { emulator, m, outcomes };
  };

  it('keeps a credited invoice credited and answers 503 while InvoiceRefunded is not live', async () => {
    const { emulator, m, outcomes } = await merchant();
    await m.partner.post('InvoiceEarned', earn('inv-1', 80));
    const answer = await m.partner.post('InvoiceRefunded', refund('inv-1', 80));
    expect([answer.status, answer.body.code]).toEqual([503, 'EVENT_HANDLER_NOT_REGISTERED']);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(8);
    expect(await outcomes()).toEqual([]);
  });

  it('reverses the earn and sends RefundReversalCompleted Reversed once shipped', async () => {
    const { emulator, m, outcomes } = await merchant();
    await m.partner.post('InvoiceEarned', earn('inv-1', 80));
    emulator.shipHandler('InvoiceRefunded');
    const answer = await m.partner.post('InvoiceRefunded', refund('inv-1', 80), {
      correlationId: '0195f3a0-0000-7000-8000-000000000001',
    });
    const [completed] = await outcomes();
    expect(answer.status).toBe(200);
    expect(completed.payload).toEqual({
      externalInvoiceId: 'inv-1-r',
      status: 'Reversed',
      pointsReversed: 8,
      stampsReversed: null,
      newBalance: 0,
    });
    expect(completed.sourceSystem).toBe('Loyalty');
    expect(completed.correlationId).toBe('0195f3a0-0000-7000-8000-000000000001');
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(0);
  });

  it('reverses in proportion to a partial refund, and never more than was earned', async () => {
    const { emulator, m, outcomes } = await merchant();
    await m.partner.post('InvoiceEarned', earn('inv-1', 100));
    emulator.shipHandler('InvoiceRefunded');
    await m.partner.post('InvoiceRefunded', { ...refund('inv-1', 50), externalInvoiceId: 'r-1' });
    await m.partner.post('InvoiceRefunded', { ...refund('inv-1', 100), externalInvoiceId: 'r-2' });
    expect((await outcomes()).map((e) => e.payload.pointsReversed)).toEqual([5, 5]);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(0);
  });

  it('reports NegativeBalanceByPolicy when the points were already used, and OverrideApplied with isOverride', async () => {
    const { emulator, m, outcomes } = await merchant();
    await m.partner.post('InvoiceEarned', earn('inv-1', 100));
    await m.partner.post('InvoiceEarned', earn('inv-2', 100));
    emulator.createRedemption(m.tenantId, { externalCustomerId: 'cust-1001', points: 15 });
    emulator.shipHandler('InvoiceRefunded');
    await m.partner.post('InvoiceRefunded', refund('inv-1', 100));
    await m.partner.post('InvoiceRefunded', refund('inv-2', 100, true));
    const [negative, override] = (await outcomes()).map((e) => e.payload);
    expect(negative).toMatchObject({ status: 'NegativeBalanceByPolicy', pointsReversed: 10, newBalance: -5 });
    expect(override).toMatchObject({ status: 'OverrideApplied', pointsReversed: 0, newBalance: -5 });
  });

  it('reverses stamps of a stamp earn', async () => {
    const { emulator, m, outcomes } = await merchant();
    await m.partner.post('InvoiceEarned', earn('inv-1', 20, 'card-coffee'));
    emulator.shipHandler('InvoiceRefunded');
    await m.partner.post('InvoiceRefunded', refund('inv-1', 20));
    expect((await outcomes())[0].payload).toMatchObject({
      status: 'Reversed',
      pointsReversed: null,
      stampsReversed: 1,
      newBalance: 0,
    });
  });
});
