import { BoundedList } from './bounded-list.js';

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
  readonly #entries: BoundedList<LedgerEntry>;

  constructor(limit: number) {
    this.#entries = new BoundedList(limit);
  }

  /** How many entries are kept. */
  get length(): number {
    return this.#entries.size;
  }

  push(entry: LedgerEntry): void {
    // Every field in one literal, in one order: each entry is a compact object of one shape.
    this.#entries.push({
      at: entry.at,
      kind: entry.kind,
      externalCustomerId: entry.externalCustomerId,
      points: entry.points,
      stamps: entry.stamps,
      stampCardId: entry.stampCardId,
      externalInvoiceId: entry.externalInvoiceId,
      redemptionId: entry.redemptionId,
      eventId: entry.eventId,
    });
  }

  /** Copies of the newest `count` entries kept (all by default), oldest first. */
  entries(count = this.length): LedgerEntry[] {
    const entries: LedgerEntry[] = [];
    const pushed = this.#entries.pushed;
    for (let n = pushed - Math.min(count, this.length); n < pushed; n++) {
      const entry = this.#entries.at(n);
      if (entry) entries.push({ ...entry });
    }
    return entries;
  }
}
