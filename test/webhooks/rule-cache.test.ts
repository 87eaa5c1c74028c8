import fc from 'fast-check';
import { LoyaltyValidationError, type PayloadInput } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import {
  createReceiver,
  createRuleCache,
  type LoyaltyRule,
  memoryRuleStore,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { outboundEvent, resolveSecrets, SECRETS, signedDelivery } from './support/deliveries.js';

const earnRate = (ruleVersion: number, externalStoreId = 'store-7'): LoyaltyRule =>
  ({ ...samplePayload('LoyaltyRuleChanged'), ruleVersion, externalStoreId }) as LoyaltyRule;

const stampRule = (ruleVersion: number, stampCardId: string): PayloadInput<'LoyaltyRuleChanged'> => ({
  externalStoreId: 'store-7',
  ruleType: 'StampRule',
  ruleVersion,
  effectiveFrom: '2026-11-20T00:00:00Z',
  payload: { stampCardId, name: 'Coffee card', mode: 'PerVisit', minInvoiceAmount: 10, isActive: true },
});

const EARN_KEY = { tenantId: 'merchant-1', externalStoreId: 'store-7', ruleType: 'EarnRate' } as const;

describe('createRuleCache', () => {
  it('ends with the highest ruleVersion whatever order the versions arrive in', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 0, max: 10_000 }), { minLength: 1, maxLength: 40 }),
        async (versions) => {
          const rules = createRuleCache();
          for (const version of versions) await rules.apply(earnRate(version), { tenantId: 'merchant-1' });
          expect((await rules.get(EARN_KEY))?.ruleVersion).toBe(Math.max(...versions));
        },
      ),
    );
  });

  it('applies exactly the versions greater than every one before them, and reports the one replaced', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 40 }),
        async (versions) => {
          const rules = createRuleCache();
          let highest: number | undefined;
          for (const version of versions) {
            const result = await rules.apply(earnRate(version), { tenantId: 'merchant-1' });
            const expected = highest === undefined || version > highest;
            expect(result).toEqual({ applied: expected, previousVersion: highest });
            if (expected) highest = version;
          }
        },
      ),
    );
  });

  it('ends with the highest version when the events are applied concurrently', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.nat(1000), { minLength: 1, maxLength: 20 }), async (versions) => {
        const rules = createRuleCache();
        const results = await Promise.all(versions.map((version) => rules.apply(earnRate(version))));
        expect((await rules.get({ ...EARN_KEY, tenantId: '' }))?.ruleVersion).toBe(Math.max(...versions));
        expect(results[versions.indexOf(Math.max(...versions))]?.applied).toBe(true);
      }),
    );
  });

  it('counts versions per tenant, store, rule type and stamp card', async () => {
    const rules = createRuleCache({ store: memoryRuleStore() });
    await rules.apply(earnRate(9), { tenantId: 'merchant-1' });
    expect((await rules.apply(earnRate(1), { tenantId: 'merchant-2' })).applied).toBe(true);
    expect((await rules.apply(earnRate(1, 'store-8'), { tenantId: 'merchant-1' })).applied).toBe(true);
    expect(
      (await rules.apply(stampRule(1, 'card-a') as LoyaltyRule, { tenantId: 'merchant-1' })).applied,
    ).toBe(true);
    expect(
      (await rules.apply(stampRule(1, 'card-b') as LoyaltyRule, { tenantId: 'merchant-1' })).applied,
    ).toBe(true);
    const card = await rules.get({ ...EARN_KEY, ruleType: 'StampRule', stampCardId: 'card-a' });
    expect(card?.payload.stampCardId).toBe('card-a');
    expect(await rules.get({ ...EARN_KEY, externalStoreId: 'store-9' })).toBeUndefined();
  });

  it('takes the whole envelope as well as its payload', async () => {
    const rules = createRuleCache();
    const event = outboundEvent('LoyaltyRuleChanged');
    expect(await rules.apply(event, { tenantId: 'merchant-1' })).toEqual({
      applied: true,
      previousVersion: undefined,
    });
    expect((await rules.get(EARN_KEY))?.ruleVersion).toBe(event.payload.ruleVersion);
  });

  it('refuses a rule that breaks the contract, naming the field', async () => {
    const rules = createRuleCache();
    const broken = { ...earnRate(3), ruleVersion: 3.5 } as LoyaltyRule;
    await expect(rules.apply(broken)).rejects.toThrow(LoyaltyValidationError);
    await expect(rules.apply(broken)).rejects.toThrow(/payload\.ruleVersion/);
    expect(() => createRuleCache({ store: {} as never })).toThrow(/store/);
  });

  it('serves as the LoyaltyRuleChanged handler of a receiver, whatever order deliveries arrive in', async () => {
    const rules = createRuleCache();
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: { LoyaltyRuleChanged: (event, ctx) => rules.apply(event, ctx) },
    });
    for (const version of [5, 7, 6]) {
      const event = outboundEvent('LoyaltyRuleChanged', {
        ...samplePayload('LoyaltyRuleChanged'),
        ruleVersion: version,
      });
      const delivery = signedDelivery(event, { tenantId: 'merchant-2', secret: SECRETS['merchant-2'] });
      expect((await receiver.handle(delivery)).status).toBe(200);
    }
    expect((await rules.get({ ...EARN_KEY, tenantId: 'merchant-2' }))?.ruleVersion).toBe(7);
  });
});
