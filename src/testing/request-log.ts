import { randomBytes } from 'node:crypto';
import { nextSlots, widen, widenRefs } from './columns.js';
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
  #refs: (string | number | null)[] = [];
  // Records still being answered, by seq: read from here until they settle.
  readonly #open = new Map<number, RequestRecord>();
  #last = 0;
  // The correlation ids the emulator makes are this random prefix and the request's seq, in the
  // shape of a UUID v4: kept as the seq (a small integer), rebuilt when read, never a string
  // per request held for `limit` requests.
  readonly #prefix: string;

  constructor(limit: number) {
    this.#limit = limit;
    const hex = randomBytes(10).toString('hex');
    this.#prefix = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-`;
  }

  /** The correlation id the emulator gives a request without one of its own. */
  correlationIdOf(seq: number): string {
    return `${this.#prefix}${seq.toString(16).padStart(12, '0')}`;
  }

  /** A correlation id as it is kept: the seq when this log made it, else the string. */
  packCorrelationId(id: string): string | number {
    if (id.length !== 36 || !id.startsWith(this.#prefix)) return id;
    const seq = Number.parseInt(id.slice(24), 16);
    return this.correlationIdOf(seq) === id ? seq : id;
  }

  unpackCorrelationId(kept: string | number): string {
    return typeof kept === 'number' ? this.correlationIdOf(kept) : kept;
  }

  /** The seq of the newest record, 0 before the first. */
  get lastSeq(): number {
    return this.#last;
  }

  get #first(): number {
    return Math.max(1, this.#last - this.#limit + 1);
  }

  /**
   * Starts the record of a request; the caller fills it in, then calls `settle`. Without a
   * correlation id of its own, the request gets one made from its seq.
   */
  open(
    record: Omit<RequestRecord, 'seq' | 'correlationId'> & { correlationId: string | null },
  ): RequestRecord {
    const seq = ++this.#last;
    record.correlationId ??= this.correlationIdOf(seq);
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
    refs[i + 7] = this.packCorrelationId(entry.correlationId);
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
      tenantId: (refs[i + 2] ?? null) as string | null,
      eventId: (refs[i + 3] ?? null) as string | null,
      eventType: (refs[i + 4] ?? null) as string | null,
      status: this.#status[slot] || null,
      code: (refs[i + 5] ?? null) as string | null,
      outcome: OUTCOMES[kind & 3] ?? 'rejected',
      fault: (refs[i + 6] ?? null) as RequestRecord['fault'],
      correlationId: this.unpackCorrelationId(refs[i + 7] ?? ''),
    };
  }

  #grow(needed: number): void {
    if (needed <= this.#at.length) return;
    const size = nextSlots(this.#at.length, 64, this.#limit);
    this.#at = widen(this.#at, size);
    this.#status = widen(this.#status, size);
    this.#kinds = widen(this.#kinds, size);
    this.#refs = widenRefs(this.#refs, size * REFS);
  }
}
