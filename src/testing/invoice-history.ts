import { BoundedMap } from './bounded-map.js';

/** An InvoiceEarned the service processed; `credited` once it earned more than zero. */
export interface InvoiceRecord {
  externalInvoiceId: string;
  externalCustomerId: string;
  subtotal: number;
  stampCardId: string | null;
  pointsEarned: number;
  stampsEarned: number;
  pointsReversed: number;
  stampsReversed: number;
  credited: boolean;
}

/**
 * A merchant's newest `limit` invoices by `externalInvoiceId`, oldest first. `get` returns a copy:
 * a change is stored with `set`.
 */
export class InvoiceHistory {
  readonly #invoices: BoundedMap<string, InvoiceRecord>;

  constructor(limit: number) {
    this.#invoices = new BoundedMap(limit);
  }

  get size(): number {
    return this.#invoices.size;
  }

  get(externalInvoiceId: string): InvoiceRecord | undefined {
    const record = this.#invoices.get(externalInvoiceId);
    return record && { ...record };
  }

  /** Stores a new invoice as the newest, or replaces a known one where it stands. */
  set(record: InvoiceRecord): void {
    this.#invoices.set(record.externalInvoiceId, { ...record });
  }

  /** Copies of the invoices kept, oldest first. */
  values(): InvoiceRecord[] {
    return [...this.#invoices.values()].map((record) => ({ ...record }));
  }
}
