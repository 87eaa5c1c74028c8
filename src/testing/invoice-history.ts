import type { InvoiceRecord } from './merchant.js';
import { StringIndex } from './string-index.js';

/**
 * A merchant's newest `limit` invoices by `externalInvoiceId`, oldest first: a ring of records
 * found through a `StringIndex`. A `Map` that forgets its oldest keys cost ~70 bytes per invoice
 * in its table and an insertion queue beside it; here the ring is the order.
 */
export class InvoiceHistory {
  readonly #limit: number;
  #records: (InvoiceRecord | null)[] = [];
  // The invoices of the ring are the ones numbered (#first .. #last]; the n-th sits in slot
  // (n - 1) % limit.
  #first = 0;
  #last = 0;
  readonly #index = new StringIndex((slot) => (this.#records[slot] as InvoiceRecord).externalInvoiceId);

  constructor(limit: number) {
    this.#limit = limit;
  }

  get size(): number {
    return this.#index.size;
  }

  get(externalInvoiceId: string): InvoiceRecord | undefined {
    const slot = this.#index.get(externalInvoiceId);
    return slot < 0 ? undefined : (this.#records[slot] ?? undefined);
  }

  /** Stores a new invoice as the newest, or replaces a known one where it stands. */
  set(record: InvoiceRecord): void {
    const known = this.#index.get(record.externalInvoiceId);
    if (known >= 0) {
      this.#records[known] = record;
      return;
    }
    if (this.#last - this.#first >= this.#limit) {
      const oldest = this.#first++ % this.#limit;
      this.#index.delete((this.#records[oldest] as InvoiceRecord).externalInvoiceId);
    }
    const slot = this.#last++ % this.#limit;
    if (slot === this.#records.length) this.#records.push(record);
    else this.#records[slot] = record;
    this.#index.set(record.externalInvoiceId, slot);
  }

  /** The records kept, oldest first (the records themselves: callers copy). */
  values(): InvoiceRecord[] {
    const records: InvoiceRecord[] = [];
    for (let n = this.#first; n < this.#last; n++)
      records.push(this.#records[n % this.#limit] as InvoiceRecord);
    return records;
  }
}
