import type { RequestRecord } from './request-router.js';

const ENDPOINTS = ['events', 'connection', 'customer-lookup', 'planned', 'unknown'] as const;
const OUTCOMES = ['processed', 'replayed', 'rejected', 'fault'] as const;
// The string fields of a record, in the order they sit in a slot of `#refs`.
const REFS = 8;

/**
 * The request log: the newest `limit` records, in columns rather than one object per request.
 * An object per request cost ~150 bytes and was promoted to the old space, where V8 sizes the
 * heap by how fast it fills; columns of a fixed size are written in place and allocate nothing
 * per request once full. A record is an object only while its request is being answered (the
 * router fills it in), then `settle` packs it; readers get fresh objects.
 */
export class RequestLog {
  readonly #limit: number;
  #at = new Float64Array(0);
  #status = new Uint16Array(0);
  // endpoint * 4 + outcome
  #kinds = new Uint8Array(0);
  // method, path, tenantId, eventId, eventType, code, fault, correlationId per slot.
  #refs: (string | null)[] = [];
  // Records still being answered, by seq: read from here until they settle.
  readonly #open = new Map<number, RequestRecord>();
  #last = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The seq of the newest record, 0 before the first. */
  get lastSeq(): number {
    return this.#last;
  }

  get #first(): number {
    return Math.max(1, this.#last - this.#limit + 1);
  }

  /** Starts the record of a request; the caller fills it in, then calls `settle`. */
  open(record: Omit<RequestRecord, 'seq'>): RequestRecord {
    const seq = ++this.#last;
    this.#open.delete(seq - this.#limit);
    this.#grow(Math.min(seq, this.#limit));
    const entry = record as RequestRecord;
    entry.seq = seq;
    this.#open.set(seq, entry);
    return entry;
  }

  /** Packs a record whose answer is known (or never will be) into its slot. */
  settle(entry: RequestRecord): void {
    if (!this.#open.delete(entry.seq)) return; // forgotten while still open
    const slot = (entry.seq - 1) % this.#limit;
    this.#at[slot] = entry.at;
    this.#status[slot] = entry.status ?? 0;
    this.#kinds[slot] = ENDPOINTS.indexOf(entry.endpoint) * 4 + OUTCOMES.indexOf(entry.outcome);
    const refs = this.#refs;
    const i = slot * REFS;
    refs[i] = entry.method;
    refs[i + 1] = entry.path;
    refs[i + 2] = entry.tenantId;
    refs[i + 3] = entry.eventId;
    refs[i + 4] = entry.eventType;
    refs[i + 5] = entry.code;
    refs[i + 6] = entry.fault;
    refs[i + 7] = entry.correlationId;
  }

  /** Fresh copies of the records after `seq` still kept, oldest first. */
  after(seq = 0): RequestRecord[] {
    const records: RequestRecord[] = [];
    for (let s = Math.max(seq + 1, this.#first); s <= this.#last; s++) records.push(this.#read(s));
    return records;
  }

  #read(seq: number): RequestRecord {
    const open = this.#open.size > 0 ? this.#open.get(seq) : undefined;
    if (open) return { ...open };
    const slot = (seq - 1) % this.#limit;
    const refs = this.#refs;
    const i = slot * REFS;
    const kind = this.#kinds[slot] ?? 0;
    return {
      seq,
      at: this.#at[slot] ?? 0,
      method: refs[i] as string,
      path: refs[i + 1] as string,
      endpoint: ENDPOINTS[kind >> 2] ?? 'unknown',
      tenantId: refs[i + 2] ?? null,
      eventId: refs[i + 3] ?? null,
      eventType: refs[i + 4] ?? null,
      status: this.#status[slot] || null,
      code: refs[i + 5] ?? null,
      outcome: OUTCOMES[kind & 3] ?? 'rejected',
      fault: (refs[i + 6] ?? null) as RequestRecord['fault'],
      correlationId: refs[i + 7] as string,
    };
  }

  // Columns double up to the limit, so a short-lived emulator in a test stays small.
  #grow(needed: number): void {
    if (needed <= this.#at.length) return;
    const size = Math.min(this.#limit, Math.max(64, this.#at.length * 2));
    const at = new Float64Array(size);
    at.set(this.#at);
    this.#at = at;
    const status = new Uint16Array(size);
    status.set(this.#status);
    this.#status = status;
    const kinds = new Uint8Array(size);
    kinds.set(this.#kinds);
    this.#kinds = kinds;
    const refs = new Array<string | null>(size * REFS).fill(null);
    for (let i = 0; i < this.#refs.length; i++) refs[i] = this.#refs[i] ?? null;
    this.#refs = refs;
  }
}
