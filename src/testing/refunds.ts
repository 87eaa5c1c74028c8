import type { PayloadOf } from '../contract/index.js';
import { balanceOf, record, stampsOn } from './ledger.js';
import type { MerchantRecord, RefundRecord } from './merchant.js';

/**
 * Reverses the refunded invoice's earn in proportion to the amount refunded and returns what
 * RefundReversalCompleted reports; the contract leaves the policy open (docs/contract-gaps.md).
 * A refund seen before returns its first outcome; one of an invoice that never earned reverses nothing.
 */
export function reverseEarn(
  merchant: MerchantRecord,
  p: PayloadOf<'InvoiceRefunded'>,
  eventId: string,
  now: number,
): { outcome: RefundRecord; repeated: boolean } {
  const seen = merchant.refunds.get(p.externalInvoiceId);
  if (seen) return { outcome: seen, repeated: true };
  const invoice = merchant.invoices.get(p.externalOriginalInvoiceId);
  const outcome: RefundRecord = {
    externalInvoiceId: p.externalInvoiceId,
    externalOriginalInvoiceId: p.externalOriginalInvoiceId,
    status: 'Reversed',
    pointsReversed: null,
    stampsReversed: null,
    newBalance: 0,
  };
  if (invoice) {
    const share = invoice.subtotal > 0 ? Math.min(1, p.refundedAmount / invoice.subtotal) : 1;
    const stamps = invoice.stampCardId !== null && invoice.stampsEarned > 0;
    const earned = stamps ? invoice.stampsEarned : invoice.pointsEarned;
    const already = stamps ? invoice.stampsReversed : invoice.pointsReversed;
    let amount = Math.min(earned - already, Math.round(earned * share));
    const customer = invoice.externalCustomerId;
    const before = stamps
      ? stampsOn(merchant, customer, invoice.stampCardId ?? '')
      : balanceOf(merchant, customer).points;
    if (before - amount < 0) {
      outcome.status = p.isOverride ? 'OverrideApplied' : 'NegativeBalanceByPolicy';
      if (p.isOverride) amount = Math.max(0, before);
    }
    if (amount > 0) {
      record(merchant, {
        at: now,
        kind: 'reversal',
        externalCustomerId: customer,
        points: stamps ? 0 : -amount,
        stamps: stamps ? -amount : 0,
        stampCardId: stamps ? invoice.stampCardId : null,
        externalInvoiceId: p.externalOriginalInvoiceId,
        eventId,
      });
    }
    if (stamps) invoice.stampsReversed += amount;
    else invoice.pointsReversed += amount;
    outcome.pointsReversed = stamps ? null : amount;
    outcome.stampsReversed = stamps ? amount : null;
    outcome.newBalance = before - amount;
  }
  merchant.refunds.set(p.externalInvoiceId, outcome);
  return { outcome, repeated: false };
}
