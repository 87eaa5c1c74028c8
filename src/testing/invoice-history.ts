import { nextSlots, widen, widenRefs } from './columns.js';
import type { InvoiceRecord } from './merchant.js';
import { StringIndex } from './string-index.js';

// externalInvoiceId, externalCustomerId, stampCardId per slot.
const REFS = 3;
// subtotal, pointsEarned, stampsEarned, pointsReversed, stampsReversed per slot.
const NUMBERS = 5;

/**
 * A merchant's newest `limit` invoices by `externalInvoiceId`, oldest first: a ring of columns
 * found through a `StringIndex`. An object per invoice (~100 bytes, promoted to the old space) in
 * a `Map` that forgets its oldest keys (~70 bytes more) was the largest record the emulator kept.
 * `get` returns a fresh object: a change is stored with `set`.
 */
export class InvoiceHistory {
  readonly #limit: number;
  #refs: (string | null)[] = [];
  #numbers = new Float64Array(0);
  #credited = new Uint8Array(0);
  // The invoices of the ring are the ones numbered (#first .. #last]; the n-th sits in slot
  // (n - 1) % limit.
  #first = 0;
  #last = 0;
  readonly #index = new StringIndex((slot) => this.#refs[slot * REFS] as string);

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#index.size;
  }

  get(externalInvoiceId: string): InvoiceRecord | undefined {
    const slot = this.#index.get(externalInvoiceId);
    return slot < 0 ? undefined : this.#read(slot);
  }

  /** Stores a new invoice as the newest, or replaces a known one where it stands. */
  set(record: InvoiceRecord): void {
    let slot = this.#index.get(record.externalInvoiceId);
    if (slot < 0) {
      if (this.#last - this.#first >= this.#limit) {
        const oldest = this.#first++ % this.#limit;
        this.#index.delete(this.#refs[oldest * REFS] as string);
      }
      const n = ++this.#last;
      this.#grow(Math.min(n, this.#limit));
      slot = (n - 1) % this.#limit;
      this.#refs[slot * REFS] = record.externalInvoiceId;
      this.#index.set(record.externalInvoiceId, slot);
    }
    this.#refs[slot * REFS + 1] = record.externalCustomerId;
    this.#refs[slot * REFS + 2] = record.stampCardId;
    const numbers = this.#numbers;
    const i = slot * NUMBERS;
    numbers[i] = record.subtotal;
    numbers[i + 1] = record.pointsEarned;
    numbers[i + 2] = record.stampsEarned;
    numbers[i + 3] = record.pointsReversed;
    numbers[i + 4] = record.stampsReversed;
    this.#credited[slot] = record.credited ? 1 : 0;
  }

  /** Fresh copies of the invoices kept, oldest first. */
  values(): InvoiceRecord[] {
    const records: InvoiceRecord[] = [];
    for (let n = this.#first; n < this.#last; n++) records.push(this.#read(n % this.#limit));
    return records;
  }

  #read(slot: number): InvoiceRecord {
    const numbers = this.#numbers;
    const i = slot * NUMBERS;
    return {
      externalInvoiceId: this.#refs[slot * REFS] as string,
      externalCustomerId: this.#refs[slot * REFS + 1] as string,
      subtotal: numbers[i] ?? 0,
      stampCardId: this.#refs[slot * REFS + 2] ?? null,
      pointsEarned: numbers[i + 1] ?? 0,
      stampsEarned: numbers[i + 2] ?? 0,
      pointsReversed: numbers[i + 3] ?? 0,
      stampsReversed: numbers[i + 4] ?? 0,
      credited: this.#credited[slot] === 1,
    };
  }

  #grow(needed: number): void {
    if (needed <= this.#credited.length) return;
    const size = nextSlots(this.#credited.length, 16, this.#limit);
    this.#numbers = widen(this.#numbers, size * NUMBERS);
    this.#credited = widen(this.#credited, size);
    this.#refs = widenRefs(this.#refs, size * REFS);
  }
}
