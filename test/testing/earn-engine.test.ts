import { DEFAULT_RULES, type MerchantOptions } from 'loyalty-partner-sdk/testing';

type StampCardRule = NonNullable<NonNullable<MerchantOptions['rules']>['stampCards']>[number];

import { describe, expect, it } from 'vitest';
import { earn, emulatorPerTest, readyMerchant } from './helpers.js';

const DAY = 24 * 60 * 60_000;
const coffee = DEFAULT_RULES.stampCards[0];

describe('invoice earn (spec 3.3 and 6.2)', () => {
  const start = emulatorPerTest();

  it('credits points computed from the active earn rule: 1 point per 10 riyals by default', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    const answer = await m.partner.post('InvoiceEarned', earn('inv-1', 86.96));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      eventId: answer.eventId,
      status: 'Processed',
      result: { pointsEarned: 8, stampsEarned: 0, balance: 8 },
    });
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(8);
    expect(emulator.merchant(m.tenantId).invoices[0]).toMatchObject({
      externalInvoiceId: 'inv-1',
      credited: true,
    });
    expect(emulator.ledger(m.tenantId)).toEqual([
      expect.objectContaining({
        kind: 'earn',
        points: 8,
        externalInvoiceId: 'inv-1',
        eventId: answer.eventId,
      }),
    ]);
  });

  it('refuses a second earn of a credited invoice, even under a new eventId, without crediting it twice', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    const first = await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    const again = await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    expect(again.eventId).not.toBe(first.eventId);
    expect([again.status, again.body.code]).toEqual([400, 'PARTNER_INVOICE_ALREADY_EARNED']);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(5);
  });

  it('acknowledges a PerVisit stamp inside the cooldown with 200 and zero stamps, and credits it after', async () => {
    const { emulator, url } = await start({ clock: 'manual' });
    const m = await readyMerchant(emulator, url, { rules: { stampCards: [{ ...coffee, cooldownDays: 1 }] } });
    const first = await m.partner.post('InvoiceEarned', earn('inv-1', 20, coffee.stampCardId));
    const inside = await m.partner.post('InvoiceEarned', earn('inv-2', 20, coffee.stampCardId));
    expect(first.body.result).toEqual({ pointsEarned: 0, stampsEarned: 1, balance: 1 });
    expect([inside.status, inside.body.result]).toEqual([
      200,
      { pointsEarned: 0, stampsEarned: 0, balance: 1 },
    ]);

    await emulator.advance(DAY);
    // Not credited before, so the same invoice may earn now under a new event.
    const after = await m.partner.post('InvoiceEarned', earn('inv-2', 20, coffee.stampCardId));
    expect(after.body.result).toEqual({ pointsEarned: 0, stampsEarned: 1, balance: 2 });
    expect(emulator.balance(m.tenantId, 'cust-1001').stamps).toEqual({ [coffee.stampCardId]: 2 });
  });

  it('counts PerAmount stamps per whole amountPerStamp, from minInvoiceAmount up', async () => {
    const { emulator, url } = await start();
    const perAmount: StampCardRule = {
      ...coffee,
      stampCardId: 'card-spend',
      mode: 'PerAmount',
      amountPerStamp: 25,
      minInvoiceAmount: 30,
    };
    const m = await readyMerchant(emulator, url, { rules: { stampCards: [perAmount] } });
    const below = await m.partner.post('InvoiceEarned', earn('inv-1', 29.99, 'card-spend'));
    const above = await m.partner.post('InvoiceEarned', earn('inv-2', 80, 'card-spend'));
    expect(below.body.result.stampsEarned).toBe(0);
    expect(above.body.result).toEqual({ pointsEarned: 0, stampsEarned: 3, balance: 3 });
  });

  it('gives pointsPerVisit for an OnVisit rule and nothing below its minimumPurchase', async () => {
    const { emulator, url } = await start();
    const onVisit = {
      methodType: 'OnVisit',
      pointCostAmount: null,
      pointCostPoints: null,
      pointsPerVisit: 3,
      minimumPurchase: 15,
      isActive: true,
    } as const;
    const m = await readyMerchant(emulator, url, { rules: { earnRate: onVisit } });
    const below = await m.partner.post('InvoiceEarned', earn('inv-1', 14.5));
    const visit = await m.partner.post('InvoiceEarned', earn('inv-2', 900));
    expect([below.status, below.body.result.pointsEarned]).toEqual([200, 0]);
    expect(visit.body.result).toEqual({ pointsEarned: 3, stampsEarned: 0, balance: 3 });
  });

  it('does not lose a point to floating point: 30 riyals at 0.1 per point earn 300', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url, {
      rules: { earnRate: { ...DEFAULT_RULES.earnRate, pointCostAmount: 0.1 } },
    });
    expect((await m.partner.post('InvoiceEarned', earn('inv-1', 30))).body.result.pointsEarned).toBe(300);
  });

  it('applies a rule the merchant changes to the next earn and announces it with a greater ruleVersion', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    const before = emulator.merchant(m.tenantId).ruleVersion;
    const version = emulator.changeRule(m.tenantId, {
      ruleType: 'EarnRate',
      payload: { ...DEFAULT_RULES.earnRate, pointCostPoints: 3 },
    });
    const answer = await m.partner.post('InvoiceEarned', earn('inv-1', 20));
    expect(version).toBe(before + 1);
    expect(answer.body.result.pointsEarned).toBe(6);
    const announced = emulator
      .deliveries({ tenantId: m.tenantId, eventType: 'LoyaltyRuleChanged' })
      .map((d) => d.envelope.payload);
    expect(announced.at(-1)).toMatchObject({
      ruleType: 'EarnRate',
      ruleVersion: version,
      externalStoreId: m.tenantId,
    });
  });

  it('refuses a FreeEntry earn method in a rule change with the contract validation error', async () => {
    const { emulator } = await start();
    const { tenantId } = emulator.createMerchant();
    const before = emulator.merchant(tenantId).ruleVersion;
    const freeEntry = {
      ...DEFAULT_RULES.earnRate,
      methodType: 'FreeEntry',
    } as unknown as typeof DEFAULT_RULES.earnRate;
    expect(() => emulator.changeRule(tenantId, { ruleType: 'EarnRate', payload: freeEntry })).toThrow(
      /FreeEntry/,
    );
    expect(emulator.merchant(tenantId).ruleVersion).toBe(before);
  });

  it('refuses an earn of a card whose earning method is switched off with NO_ACTIVE_EARNING_METHOD', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url, {
      rules: { stampCards: [{ ...coffee, earningMethodActive: false }] },
    });
    const answer = await m.partner.post('InvoiceEarned', earn('inv-1', 20, coffee.stampCardId));
    expect([answer.status, answer.body.code]).toEqual([400, 'NO_ACTIVE_EARNING_METHOD']);
  });

  it('credits an earn refused for the setup once the merchant fixes it, under the same eventId', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    emulator.freezeCustomer(m.tenantId, 'cust-1001');
    const refused = await m.partner.post('InvoiceEarned', earn('inv-1', 40));
    emulator.unfreezeCustomer(m.tenantId, 'cust-1001');
    const redelivered = await m.partner.post('InvoiceEarned', earn('inv-1', 40), {
      eventId: refused.eventId,
    });
    expect(refused.body.code).toBe('CUSTOMER_INACTIVE');
    expect([redelivered.status, redelivered.body.result.pointsEarned]).toEqual([200, 4]);
  });
});
