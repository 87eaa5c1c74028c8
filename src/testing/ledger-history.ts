/** One movement of points or stamps. Balances are the sums of these. */
export interface LedgerEntry {
  /** Emulator time, epoch milliseconds. */
  at: number;
  kind: 'earn' | 'reversal' | 'redemption' | 'redemption-release';
  externalCustomerId: string;
  /** Signed change of the points balance. */
  points: number;
  /** Signed change of the stamps on `stampCardId`. */
  stamps: number;
  stampCardId: string | null;
  externalInvoiceId: string | null;
  redemptionId: string | null;
  /** The partner event that caused it, when one did. */
  eventId: string | null;
}
