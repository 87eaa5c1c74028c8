import { type EventType, LoyaltyValidationError, schemas } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES, parsePayload } from '../../src/contract/index.js';
import { samplePayload } from '../../src/testing/sample-payloads.js';

function refusal(eventType: EventType, payload: unknown): LoyaltyValidationError {
  try {
    parsePayload(eventType, payload);
  } catch (err) {
    expect(err).toBeInstanceOf(LoyaltyValidationError);
    return err as LoyaltyValidationError;
  }
  throw new Error(`${eventType} payload was accepted`);
}

function paths(err: LoyaltyValidationError): string[] {
  return err.issues.map((issue) => issue.path);
}

// One required field per type whose absence must be refused, naming that field.
const REQUIRED_FIELD: Record<EventType, string> = {
  InvoiceEarned: 'externalBranchId',
  InvoiceRefunded: 'externalOriginalInvoiceId',
  CouponUsed: 'externalCustomerId',
  CouponUsageCancelled: 'externalInvoiceId',
  BranchSynced: 'isActive',
  CustomerSynced: 'phone',
  ProductSynced: 'price',
  CouponSynced: 'discountType',
  BranchesSyncedBatch: 'items',
  CustomersSyncedBatch: 'items',
  ProductsSyncedBatch: 'items',
  CouponsSyncedBatch: 'items',
  RefundReversalCompleted: 'newBalance',
  LoyaltyRuleChanged: 'ruleVersion',
  RedemptionExpiredOrCancelled: 'reason',
  IntegrationStatusChanged: 'status',
};

describe('payload schemas', () => {
  it.each([...EVENT_TYPE_NAMES])('accept the sample %s payload', (eventType) => {
    expect(() => parsePayload(eventType, samplePayload(eventType))).not.toThrow();
    expect(schemas.payloads[eventType].safeParse(samplePayload(eventType)).success).toBe(true);
  });

  it.each(Object.entries(REQUIRED_FIELD))('refuse %s without %s, naming the field', (eventType, field) => {
    const payload = samplePayload(eventType as EventType) as Record<string, unknown>;
    delete payload[field];
    const err = refusal(eventType as EventType, payload);
    expect(err.code).toBe('INVALID_PAYLOAD');
    expect(paths(err)).toContain(`payload.${field}`);
    expect(err.message).toContain(`payload.${field}: is required`);
  });

  it.each([...EVENT_TYPE_NAMES])('refuse a %s payload that is not an object', (eventType) => {
    expect(refusal(eventType, 'nope').code).toBe('INVALID_PAYLOAD');
    expect(refusal(eventType, null).code).toBe('INVALID_PAYLOAD');
  });

  it('refuses a misspelt field in what the partner sends, naming it', () => {
    const payload = { ...samplePayload('CustomerSynced'), externalCustomerID: 'c-1' };
    expect(paths(refusal('CustomerSynced', payload))).toEqual(['payload.externalCustomerID']);
  });

  it('accepts unknown extra fields in what the partner receives, and keeps them', () => {
    const payload = { ...samplePayload('IntegrationStatusChanged'), reasonText: 'merchant asked' };
    expect(parsePayload('IntegrationStatusChanged', payload)).toEqual(payload);
    const rule = samplePayload('LoyaltyRuleChanged');
    const withExtras = { ...rule, newField: 1, payload: { ...rule.payload, anotherField: true } };
    expect(parsePayload('LoyaltyRuleChanged', withExtras)).toEqual(withExtras);
  });

  describe('InvoiceEarned', () => {
    const base = samplePayload('InvoiceEarned');

    it('requires stampCardId when earnType is Stamps', () => {
      const err = refusal('InvoiceEarned', { ...base, earnType: 'Stamps', stampCardId: null });
      expect(err.issues).toEqual([
        { path: 'payload.stampCardId', message: 'is required when earnType is Stamps' },
      ]);
      expect(
        parsePayload('InvoiceEarned', { ...base, earnType: 'Stamps', stampCardId: 'card-1' }).stampCardId,
      ).toBe('card-1');
    });

    it('refuses a stampCardId with earnType Points and fills in null when it is omitted', () => {
      expect(paths(refusal('InvoiceEarned', { ...base, stampCardId: 'card-1' }))).toEqual([
        'payload.stampCardId',
      ]);
      const { stampCardId: _omitted, ...withoutCard } = base;
      expect(parsePayload('InvoiceEarned', withoutCard).stampCardId).toBeNull();
    });

    it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, '10'])('refuses the subtotal %s', (subtotal) => {
      expect(paths(refusal('InvoiceEarned', { ...base, subtotalAfterDiscountBeforeVat: subtotal }))).toEqual([
        'payload.subtotalAfterDiscountBeforeVat',
      ]);
    });

    it('refuses an unknown channel or earnType', () => {
      expect(paths(refusal('InvoiceEarned', { ...base, channel: 'Web' }))).toEqual(['payload.channel']);
      expect(paths(refusal('InvoiceEarned', { ...base, earnType: 'Miles' }))).toEqual(['payload.earnType']);
    });
  });

  it('defaults product isActive to true and coupon isLoyaltyProgramCoupon to false', () => {
    expect(parsePayload('ProductSynced', { externalProductId: 'p', name: 'Tea', price: 5 }).isActive).toBe(
      true,
    );
    const coupon = {
      externalCouponId: 'k',
      name: 'K',
      discountType: 'FixedAmount',
      discountValue: 5,
    } as const;
    expect(parsePayload('CouponSynced', coupon).isLoyaltyProgramCoupon).toBe(false);
    expect(parsePayload('CouponsSyncedBatch', { items: [coupon] }).items[0]?.isLoyaltyProgramCoupon).toBe(
      false,
    );
  });

  it('refuses a percentage coupon above 100', () => {
    const coupon = {
      externalCouponId: 'k',
      name: 'K',
      discountType: 'Percentage',
      discountValue: 150,
    } as const;
    expect(paths(refusal('CouponSynced', coupon))).toEqual(['payload.discountValue']);
  });

  it('accepts batches of 1 to 500 items and refuses 0 or 501', () => {
    const branch = (i: number) => ({ externalBranchId: `b-${i}`, name: `B${i}`, isActive: true });
    expect(parsePayload('BranchesSyncedBatch', { items: [branch(0)] }).items).toHaveLength(1);
    expect(
      parsePayload('BranchesSyncedBatch', { items: Array.from({ length: 500 }, (_, i) => branch(i)) }).items,
    ).toHaveLength(500);
    expect(paths(refusal('BranchesSyncedBatch', { items: [] }))).toEqual(['payload.items']);
    expect(
      paths(refusal('BranchesSyncedBatch', { items: Array.from({ length: 501 }, (_, i) => branch(i)) })),
    ).toEqual(['payload.items']);
  });

  it('names the index of a bad item in a batch', () => {
    const items = [samplePayload('ProductSynced'), { externalProductId: 'p-2', name: 'Mocha', price: -3 }];
    expect(paths(refusal('ProductsSyncedBatch', { items }))).toEqual(['payload.items.1.price']);
  });

  describe('LoyaltyRuleChanged', () => {
    const rule = samplePayload('LoyaltyRuleChanged');
    const earn = rule.payload as Record<string, unknown>;

    it('requires the cost fields for OnPurchase and pointsPerVisit for OnVisit', () => {
      expect(
        paths(refusal('LoyaltyRuleChanged', { ...rule, payload: { ...earn, pointCostPoints: null } })),
      ).toEqual(['payload.payload.pointCostPoints']);
      const onVisit = {
        ...earn,
        methodType: 'OnVisit',
        pointCostAmount: null,
        pointCostPoints: null,
        pointsPerVisit: 5,
      };
      expect(() => parsePayload('LoyaltyRuleChanged', { ...rule, payload: onVisit })).not.toThrow();
      expect(
        paths(refusal('LoyaltyRuleChanged', { ...rule, payload: { ...onVisit, pointsPerVisit: null } })),
      ).toEqual(['payload.payload.pointsPerVisit']);
      expect(
        paths(refusal('LoyaltyRuleChanged', { ...rule, payload: { ...onVisit, pointCostAmount: 10 } })),
      ).toEqual(['payload.payload.pointCostAmount']);
    });

    it('rejects the FreeEntry earn method with a message that says why', () => {
      const err = refusal('LoyaltyRuleChanged', { ...rule, payload: { ...earn, methodType: 'FreeEntry' } });
      expect(err.issues[0]?.path).toBe('payload.payload.methodType');
      expect(err.issues[0]?.message).toContain('FreeEntry is not a valid partner earn method');
    });

    it('validates a StampRule body by mode', () => {
      const stamp = {
        stampCardId: 'card-1',
        name: 'Coffee card',
        mode: 'PerAmount',
        minInvoiceAmount: 0,
        amountPerStamp: 20,
        cooldownDays: null,
        isActive: true,
      };
      const stampRule = { ...rule, ruleType: 'StampRule', payload: stamp };
      expect(() => parsePayload('LoyaltyRuleChanged', stampRule)).not.toThrow();
      expect(
        paths(refusal('LoyaltyRuleChanged', { ...stampRule, payload: { ...stamp, amountPerStamp: null } })),
      ).toEqual(['payload.payload.amountPerStamp']);
      expect(() =>
        parsePayload('LoyaltyRuleChanged', {
          ...stampRule,
          payload: { ...stamp, mode: 'PerVisit', amountPerStamp: null, cooldownDays: 1 },
        }),
      ).not.toThrow();
    });

    it('requires an ISO 8601 UTC effectiveFrom', () => {
      expect(
        paths(refusal('LoyaltyRuleChanged', { ...rule, effectiveFrom: '2026-11-20T03:00:00+03:00' })),
      ).toEqual(['payload.effectiveFrom']);
    });
  });
});
