import { nextSlots, widen, widenRefs } from './columns.js';
import type { LedgerEntry } from './merchant.js';

const KINDS = ['earn', 'reversal', 'redemption', 'redemption-release'] as const;
// externalCustomerId, stampCardId, externalInvoiceId, redemptionId, eventId per slot.
const REFS = 5;

/**
 * A merchant's newest `limit` ledger entries, in columns: an entry object cost ~130 bytes (its
 * nine fields did not fit in the object) and was promoted to the old space; columns of a fixed
 * size are written in place. Readers get fresh objects. Balances are kept apart, as running sums.
 */
export class LedgerHistory {
  readonly #limit: number;
  // at, points, stamps per slot.
  #numbers = new Float64Array(0);
  #kinds = new Uint8Array(0);
  #refs: (string | null)[] = [];
  #count = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many entries are kept. */
  get length(): number {
    return Math.min(this.#count, this.#limit);
  }

  push(entry: LedgerEntry): void {
    const n = this.#count++;
    this.#grow(Math.min(n + 1, this.#limit));
    const slot = n % this.#limit;
    this.#numbers[slot * 3] = entry.at;
    this.#numbers[slot * 3 + 1] = entry.points;
    this.#numbers[slot * 3 + 2] = entry.stamps;
    this.#kinds[slot] = KINDS.indexOf(entry.kind);
    const i = slot * REFS;
    this.#refs[i] = entry.externalCustomerId;
    this.#refs[i + 1] = entry.stampCardId;
    this.#refs[i + 2] = entry.externalInvoiceId;
    this.#refs[i + 3] = entry.redemptionId;
    this.#refs[i + 4] = entry.eventId;
  }

  /** Fresh copies of the newest `count` entries kept (all by default), oldest first. */
  entries(count = this.length): LedgerEntry[] {
    const entries: LedgerEntry[] = [];
    for (let n = this.#count - Math.min(count, this.length); n < this.#count; n++) {
      const slot = n % this.#limit;
      const i = slot * REFS;
      entries.push({
        at: this.#numbers[slot * 3] ?? 0,
        kind: KINDS[this.#kinds[slot] ?? 0] ?? 'earn',
        externalCustomerId: this.#refs[i] as string,
        points: this.#numbers[slot * 3 + 1] ?? 0,
        stamps: this.#numbers[slot * 3 + 2] ?? 0,
        stampCardId: this.#refs[i + 1] ?? null,
        externalInvoiceId: this.#refs[i + 2] ?? null,
        redemptionId: this.#refs[i + 3] ?? null,
        eventId: this.#refs[i + 4] ?? null,
      });
    }
    return entries;
  }

  #grow(needed: number): void {
    if (needed <= this.#kinds.length) return;
    const size = nextSlots(this.#kinds.length, 16, this.#limit);
    this.#numbers = widen(this.#numbers, size * 3);
    this.#kinds = widen(this.#kinds, size);
    this.#refs = widenRefs(this.#refs, size * REFS);
  }
}
