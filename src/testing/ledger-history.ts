import { BoundedMap } from './bounded-map.js';

/**
 * One movement of points or stamps. Balances are the sums of these.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const reversals = createEmulator().ledger('merchant-1').filter((entry) => entry.kind === 'reversal');
 * ```
 */
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

/** A merchant's newest `limit` ledger entries. Balances are kept apart, as running sums. */
export class LedgerHistory {
  // By position in the ledger since the merchant was created, from 0.
  readonly #entries: BoundedMap<number, LedgerEntry>;
  #count = 0;

  constructor(limit: number) {
    this.#entries = new BoundedMap(limit);
  }

  /** How many entries are kept. */
  get length(): number {
    return this.#entries.size;
  }

  push(entry: LedgerEntry): void {
    this.#entries.set(this.#count++, { ...entry });
  }

  /** Copies of the newest `count` entries kept (all by default), oldest first. */
  entries(count = this.length): LedgerEntry[] {
    const entries: LedgerEntry[] = [];
    for (let n = this.#count - Math.min(count, this.length); n < this.#count; n++) {
      const entry = this.#entries.get(n);
      if (entry) entries.push({ ...entry });
    }
    return entries;
  }
}
