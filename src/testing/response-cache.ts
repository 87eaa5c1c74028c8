import { DEDUP_WINDOW_MS } from '../contract/limits.js';
import { nextSlots, widen, widenRefs } from './columns.js';
import { StringIndex } from './string-index.js';

/**
 * How long the response to an `eventId` is replayed (spec 8): 24 hours.
 */
export const RESPONSE_CACHE_TTL_MS = DEDUP_WINDOW_MS;

/**
 * A successful answer to POST /events, kept to be replayed byte for byte. Only what differs from
 * one answer to the next is kept: the body is `processedBody(eventId, result)`, rebuilt on replay
 * (a body string per event was most of the cache's memory).
 */
export interface CachedResponse {
  /** The handler's `result`, never changed after it answered; `undefined` when it had none. */
  result: Readonly<Record<string, unknown>> | undefined;
  correlationId: string;
}

/** The body of a processed event, as the service answers it and replays it. */
export function processedBody(eventId: string, result: CachedResponse['result']): string {
  return JSON.stringify({ eventId, status: 'Processed', ...(result && { result }) });
}

// Per cached answer, in its slot of the ring: the tenant's index, the eventId, the correlation
// id (packed by the request log) and the result (or its shape's number), in one flat array.
const REFS = 4;
// A result of up to this many fields, all numbers (InvoiceEarned's pointsEarned, stampsEarned,
// balance), is kept as numbers under the number of its shape (its keys): no object per answer.
const PACKED_FIELDS = 3;
const MAX_SHAPES = 64;

/** How the request log keeps the correlation ids it made: as numbers, rebuilt when read. */
export interface CorrelationIdPacker {
  packCorrelationId(id: string): string | number;
  unpackCorrelationId(kept: string | number): string;
}

/**
 * The dedup cache of POST /events, per tenant and `eventId`. Only successes are stored: a failed
 * delivery is never cached, so a redelivery after the setup is fixed is processed afresh.
 * Answers sit in a ring of the newest `limit`, in columns, found through each tenant's
 * `StringIndex` (eventId -> slot): no object per answer (~120 bytes, promoted to the old space)
 * and no `Map` entry (~70 bytes). Expired answers are swept from the oldest as new ones arrive:
 * memory stays flat however long the emulator runs.
 */
export class ResponseCache {
  readonly #tenants = new Map<string, StringIndex>();
  readonly #now: () => number;
  readonly #limit: number;
  readonly #ids: CorrelationIdPacker;
  #storedAt = new Float64Array(0);
  #numbers = new Float64Array(0);
  #refs: unknown[] = [];
  readonly #shapes: string[][] = [];
  readonly #shapeOf = new Map<string, number>();
  // The answers of the ring are the ones numbered (#first .. #last], oldest first; the n-th sits
  // in slot (n - 1) % limit.
  #first = 0;
  #last = 0;
  #size = 0;
  readonly #keyOf = (slot: number) => this.#refs[slot * REFS + 1] as string;

  constructor(now: () => number, limit: number, ids: CorrelationIdPacker) {
    this.#now = now;
    this.#limit = limit;
    this.#ids = ids;
  }

  get(tenantId: string, eventId: string): CachedResponse | undefined {
    const index = this.#tenants.get(tenantId);
    const slot = index?.get(eventId) ?? -1;
    if (index === undefined || slot < 0) return undefined;
    if (this.#now() - (this.#storedAt[slot] ?? 0) >= RESPONSE_CACHE_TTL_MS) {
      index.delete(eventId);
      this.#size -= 1;
      return undefined;
    }
    const i = slot * REFS;
    const result = this.#refs[i + 3];
    return {
      correlationId: this.#ids.unpackCorrelationId(this.#refs[i + 2] as string | number),
      result: typeof result === 'number' ? this.#unpack(slot, result) : (result as CachedResponse['result']),
    };
  }

  set(tenantId: string, eventId: string, answer: CachedResponse): void {
    const now = this.#now();
    let index = this.#tenants.get(tenantId);
    if (!index) {
      index = new StringIndex(this.#keyOf);
      this.#tenants.set(tenantId, index);
    }
    this.#sweep(now);
    // The ring is full: its oldest slot is the one this answer takes.
    if (this.#last - this.#first >= this.#limit) this.#forgetOldest();
    const n = ++this.#last;
    this.#grow(Math.min(n, this.#limit));
    const slot = (n - 1) % this.#limit;
    this.#storedAt[slot] = now;
    const i = slot * REFS;
    this.#refs[i] = index;
    this.#refs[i + 1] = eventId;
    this.#refs[i + 2] = this.#ids.packCorrelationId(answer.correlationId);
    this.#refs[i + 3] = this.#pack(slot, answer.result);
    if (index.get(eventId) < 0) this.#size += 1;
    index.set(eventId, slot);
  }

  get size(): number {
    return this.#size;
  }

  #pack(slot: number, result: CachedResponse['result']): unknown {
    if (result === undefined) return undefined;
    const keys = Object.keys(result);
    if (keys.length > PACKED_FIELDS || keys.some((key) => typeof result[key] !== 'number')) return result;
    const name = keys.join('\u0000');
    let shape = this.#shapeOf.get(name);
    if (shape === undefined) {
      if (this.#shapes.length >= MAX_SHAPES) return result;
      shape = this.#shapes.push(keys) - 1;
      this.#shapeOf.set(name, shape);
    }
    keys.forEach((key, k) => {
      this.#numbers[slot * PACKED_FIELDS + k] = result[key] as number;
    });
    return shape;
  }

  // The result as it was stored: the same keys in the same order, so its JSON is the same bytes.
  #unpack(slot: number, shape: number): CachedResponse['result'] {
    const result: Record<string, number> = {};
    (this.#shapes[shape] ?? []).forEach((key, k) => {
      result[key] = this.#numbers[slot * PACKED_FIELDS + k] as number;
    });
    return result;
  }

  // Forgets the oldest answer; a key stored again later sits in a newer slot and stays.
  #forgetOldest(): void {
    const slot = this.#first++ % this.#limit;
    const i = slot * REFS;
    const index = this.#refs[i] as StringIndex;
    const eventId = this.#refs[i + 1] as string;
    if (index.get(eventId) === slot) {
      index.delete(eventId);
      this.#size -= 1;
    }
    this.#refs.fill(null, i, i + REFS);
  }

  // Forgets from the oldest what expired.
  #sweep(now: number): void {
    while (this.#first < this.#last) {
      const storedAt = this.#storedAt[this.#first % this.#limit] ?? 0;
      if (now - storedAt < RESPONSE_CACHE_TTL_MS) return;
      this.#forgetOldest();
    }
  }

  #grow(needed: number): void {
    if (needed <= this.#storedAt.length) return;
    const size = nextSlots(this.#storedAt.length, 64, this.#limit);
    this.#storedAt = widen(this.#storedAt, size);
    this.#numbers = widen(this.#numbers, size * PACKED_FIELDS);
    this.#refs = widenRefs(this.#refs, size * REFS);
  }
}
