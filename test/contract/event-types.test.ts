import { EVENT_TYPES, type EventType } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import {
  EVENT_TYPE_NAMES,
  isEventType,
  isInboundEventType,
  isOutboundEventType,
} from '../../src/contract/index.js';

// Section 6.1 of the spec, transcribed row by row: eventType | direction | state.
const SPEC_6_1 = `
InvoiceEarned | partner to service | Available
InvoiceRefunded | partner to service | Planned
RefundReversalCompleted | service to partner | Outbound (webhook catalog: Planned, not emitted yet)
CouponUsed | partner to service | Available
CouponUsageCancelled | partner to service | Available
BranchSynced | partner to service | Available
CustomerSynced | partner to service | Available
ProductSynced | partner to service | Available
CouponSynced | partner to service | Available
BranchesSyncedBatch | partner to service | Planned
CustomersSyncedBatch | partner to service | Planned
ProductsSyncedBatch | partner to service | Planned
CouponsSyncedBatch | partner to service | Planned
LoyaltyRuleChanged | service to partner | Outbound (webhook catalog: Available)
RedemptionExpiredOrCancelled | service to partner | Outbound (webhook catalog: Planned, not emitted yet)
IntegrationStatusChanged | service to partner | Outbound (webhook catalog: Available)
`
  .trim()
  .split('\n')
  .map((line) => line.split(' | ') as [string, string, string]);

// The entity mapping fixed by issue 2: eventType -> [entityType, entityIdField].
const ENTITY_MAPPING: Record<EventType, [string, string | null]> = {
  InvoiceEarned: ['Invoice', 'externalInvoiceId'],
  InvoiceRefunded: ['Invoice', 'externalInvoiceId'],
  RefundReversalCompleted: ['Invoice', 'externalInvoiceId'],
  CouponUsed: ['Coupon', 'externalCouponId'],
  CouponUsageCancelled: ['Coupon', 'externalCouponId'],
  CouponSynced: ['Coupon', 'externalCouponId'],
  BranchSynced: ['Branch', 'externalBranchId'],
  CustomerSynced: ['Customer', 'externalCustomerId'],
  ProductSynced: ['Product', 'externalProductId'],
  BranchesSyncedBatch: ['Branch', 'externalBranchId'],
  CustomersSyncedBatch: ['Customer', 'externalCustomerId'],
  ProductsSyncedBatch: ['Product', 'externalProductId'],
  CouponsSyncedBatch: ['Coupon', 'externalCouponId'],
  LoyaltyRuleChanged: ['LoyaltyRule', 'externalStoreId'],
  RedemptionExpiredOrCancelled: ['Redemption', 'redemptionId'],
  IntegrationStatusChanged: ['Integration', null],
};

describe('EVENT_TYPES', () => {
  it('lists exactly the 16 event types of spec section 6.1', () => {
    expect([...EVENT_TYPE_NAMES].sort()).toEqual(SPEC_6_1.map(([name]) => name).sort());
    expect(Object.keys(EVENT_TYPES).sort()).toEqual([...EVENT_TYPE_NAMES].sort());
  });

  it.each(SPEC_6_1)(
    'gives %s the direction and availability of the spec (%s, %s)',
    (name, direction, state) => {
      const info = EVENT_TYPES[name as EventType];
      expect(info.direction).toBe(direction === 'partner to service' ? 'inbound' : 'outbound');
      expect(state.startsWith(info.availability)).toBe(true);
      if (info.direction === 'outbound') {
        expect('emitted' in info && info.emitted).toBe(!state.includes('not emitted yet'));
      }
    },
  );

  it.each(Object.entries(ENTITY_MAPPING))('maps %s to entity %j', (name, [entityType, field]) => {
    const info = EVENT_TYPES[name as EventType];
    expect(info.entityType).toBe(entityType);
    expect(info.entityIdField).toBe(field);
  });

  it('points each batch type at the single-entity type of its items', () => {
    expect(EVENT_TYPES.BranchesSyncedBatch.singleEventType).toBe('BranchSynced');
    expect(EVENT_TYPES.CustomersSyncedBatch.singleEventType).toBe('CustomerSynced');
    expect(EVENT_TYPES.ProductsSyncedBatch.singleEventType).toBe('ProductSynced');
    expect(EVENT_TYPES.CouponsSyncedBatch.singleEventType).toBe('CouponSynced');
  });

  it('narrows strings with isEventType, isInboundEventType and isOutboundEventType', () => {
    expect(isEventType('InvoiceEarned')).toBe(true);
    expect(isEventType('invoiceearned')).toBe(false);
    expect(isEventType('toString')).toBe(false);
    expect(isEventType(42)).toBe(false);
    expect(isInboundEventType('CouponUsed')).toBe(true);
    expect(isInboundEventType('LoyaltyRuleChanged')).toBe(false);
    expect(isOutboundEventType('LoyaltyRuleChanged')).toBe(true);
    expect(isOutboundEventType('CouponUsed')).toBe(false);
  });
});
