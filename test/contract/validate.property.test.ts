import fc from 'fast-check';
import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { parsePayload } from '../../src/contract/index.js';

// Any text with at least one character that is not whitespace: what the contract requires.
const nonEmpty = fc.string({ minLength: 1, maxLength: 40 }).filter((text) => /\S/.test(text));
const money = fc.double({ min: 0, max: 1e9, noNaN: true, noDefaultInfinity: true });

const invoiceEarned = fc.oneof(
  fc.record({
    externalInvoiceId: nonEmpty,
    externalCustomerId: nonEmpty,
    externalBranchId: nonEmpty,
    subtotalAfterDiscountBeforeVat: money,
    earnType: fc.constant('Points' as const),
    stampCardId: fc.constant(null),
    channel: fc.constantFrom('Pos' as const, 'Kiosk' as const),
  }),
  fc.record({
    externalInvoiceId: nonEmpty,
    externalCustomerId: nonEmpty,
    externalBranchId: nonEmpty,
    subtotalAfterDiscountBeforeVat: money,
    earnType: fc.constant('Stamps' as const),
    stampCardId: nonEmpty,
    channel: fc.constantFrom('Pos' as const, 'Kiosk' as const),
  }),
);

const REQUIRED = [
  'externalInvoiceId',
  'externalCustomerId',
  'externalBranchId',
  'subtotalAfterDiscountBeforeVat',
  'earnType',
  'channel',
] as const;

describe('parsePayload (properties)', () => {
  it('accepts every well-formed InvoiceEarned payload unchanged', () => {
    fc.assert(
      fc.property(invoiceEarned, (payload) => {
        expect(parsePayload('InvoiceEarned', payload)).toEqual(payload);
      }),
    );
  });

  it('refuses an InvoiceEarned payload missing any required field, naming exactly that field', () => {
    fc.assert(
      fc.property(invoiceEarned, fc.constantFrom(...REQUIRED), (payload, field) => {
        const broken: Record<string, unknown> = { ...payload };
        delete broken[field];
        try {
          parsePayload('InvoiceEarned', broken);
          return false;
        } catch (err) {
          return (
            err instanceof LoyaltyValidationError &&
            err.issues.length === 1 &&
            err.issues[0]?.path === `payload.${field}` &&
            err.issues[0]?.message === 'is required'
          );
        }
      }),
    );
  });

  it('throws nothing but LoyaltyValidationError for arbitrary input to any event type', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          'InvoiceEarned',
          'CustomersSyncedBatch',
          'LoyaltyRuleChanged',
          'CouponSynced',
          'NotAType',
        ),
        fc.anything({ withNullPrototype: true, withBigInt: true, withDate: true, withMap: true }),
        (eventType, input) => {
          try {
            parsePayload(eventType as 'InvoiceEarned', input);
          } catch (err) {
            expect(err).toBeInstanceOf(LoyaltyValidationError);
          }
        },
      ),
    );
  });
});
