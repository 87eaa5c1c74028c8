import type { LedgerEntry, MerchantRecord } from './merchant.js';

/** A customer's balances: points, and stamps per stamp card. */
export interface Balance {
  points: number;
  stamps: Record<string, number>;
}

/** Appends one movement to the merchant's ledger and to the customer's running balance. */
export function record(
  merchant: MerchantRecord,
  entry: Pick<LedgerEntry, 'at' | 'kind' | 'externalCustomerId' | 'points'> & Partial<LedgerEntry>,
): void {
  const full: LedgerEntry = {
    stamps: 0,
    stampCardId: null,
    externalInvoiceId: null,
    redemptionId: null,
    eventId: null,
    ...entry,
  };
  merchant.ledger.push(full);
  // Kept alongside the ledger so a balance never costs a scan of every movement.
  const balance = merchant.balances.get(full.externalCustomerId) ?? { points: 0, stamps: {} };
  balance.points += full.points;
  if (full.stampCardId !== null && full.stamps !== 0) {
    balance.stamps[full.stampCardId] = (balance.stamps[full.stampCardId] ?? 0) + full.stamps;
  }
  merchant.balances.set(full.externalCustomerId, balance);
}

/** The balances of one customer (a customer never seen has zero). A copy. */
export function balanceOf(merchant: MerchantRecord, externalCustomerId: string): Balance {
  const balance = merchant.balances.get(externalCustomerId);
  return balance ? { points: balance.points, stamps: { ...balance.stamps } } : { points: 0, stamps: {} };
}

export function stampsOn(merchant: MerchantRecord, externalCustomerId: string, stampCardId: string): number {
  return balanceOf(merchant, externalCustomerId).stamps[stampCardId] ?? 0;
}
