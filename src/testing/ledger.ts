import type { LedgerEntry, MerchantRecord } from './merchant.js';

/**
 * A customer's balances: points, and stamps per stamp card.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * const { tenantId } = emulator.createMerchant();
 * const { points, stamps } = emulator.balance(tenantId, 'cust-1001'); // stamps['card-coffee'] ...
 * ```
 */
export interface Balance {
  points: number;
  stamps: Record<string, number>;
}

/** Appends one movement to the merchant's ledger. */
export function record(
  merchant: MerchantRecord,
  entry: Omit<LedgerEntry, 'stampCardId' | 'externalInvoiceId' | 'redemptionId' | 'eventId' | 'stamps'> &
    Partial<LedgerEntry>,
): void {
  merchant.ledger.push({
    stamps: 0,
    stampCardId: null,
    externalInvoiceId: null,
    redemptionId: null,
    eventId: null,
    ...entry,
  });
}

/** The balances of one customer, summed from the ledger (a customer never seen has zero). */
export function balanceOf(merchant: MerchantRecord, externalCustomerId: string): Balance {
  const balance: Balance = { points: 0, stamps: {} };
  for (const entry of merchant.ledger) {
    if (entry.externalCustomerId !== externalCustomerId) continue;
    balance.points += entry.points;
    if (entry.stampCardId !== null && entry.stamps !== 0) {
      balance.stamps[entry.stampCardId] = (balance.stamps[entry.stampCardId] ?? 0) + entry.stamps;
    }
  }
  return balance;
}

/** The stamps one customer holds on one card. */
export function stampsOn(merchant: MerchantRecord, externalCustomerId: string, stampCardId: string): number {
  return balanceOf(merchant, externalCustomerId).stamps[stampCardId] ?? 0;
}
