import { DEDUP_WINDOW_MS } from '../contract/limits.js';

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

// Per cached answer, in the slot of its seq: the tenant's map, the eventId, the correlation id
// and the result, in one flat array (`storedAt` has its own column).
const REFS = 4;

/**
 * The dedup cache of POST /events, per tenant and `eventId`. Only successes are stored: a failed
 * delivery is never cached, so a redelivery after the setup is fixed is processed afresh.
 * Answers sit in a ring of the newest `limit`, in columns, and each tenant's `Map` holds only
 * eventId -> seq (a small integer): no object per answer, which cost ~120 bytes and was promoted
 * to the old space. Expired answers are swept from the oldest as new ones arrive: memory stays
 * flat however long the emulator runs.
 */
export class ResponseCache {
  readonly #tenants = new Map<string, Map<string, number>>();
  readonly #now: () => number;
  readonly #limit: number;
  #storedAt = new Float64Array(0);
  #refs: unknown[] = [];
  // The seqs of the ring: (#first .. #last], oldest first.
  #first = 0;
  #last = 0;
  #size = 0;

  constructor(now: () => number, limit: number) {
    this.#now = now;
    this.#limit = limit;
  }

  get(tenantId: string, eventId: string): CachedResponse | undefined {
    const entries = this.#tenants.get(tenantId);
    const seq = entries?.get(eventId);
    if (entries === undefined || seq === undefined) return undefined;
    const slot = (seq - 1) % this.#limit;
    if (this.#now() - (this.#storedAt[slot] ?? 0) >= RESPONSE_CACHE_TTL_MS) {
      entries.delete(eventId);
      this.#size -= 1;
      return undefined;
    }
    const i = slot * REFS;
    return {
      correlationId: this.#refs[i + 2] as string,
      result: this.#refs[i + 3] as CachedResponse['result'],
    };
  }

  set(tenantId: string, eventId: string, answer: CachedResponse): void {
    const now = this.#now();
    let entries = this.#tenants.get(tenantId);
    if (!entries) {
      entries = new Map();
      this.#tenants.set(tenantId, entries);
    }
    this.#sweep(now);
    // The ring is full: its oldest slot is the one this answer takes.
    if (this.#last - this.#first >= this.#limit) this.#forgetOldest();
    const seq = ++this.#last;
    this.#grow(Math.min(seq, this.#limit));
    const slot = (seq - 1) % this.#limit;
    this.#storedAt[slot] = now;
    const i = slot * REFS;
    this.#refs[i] = entries;
    this.#refs[i + 1] = eventId;
    this.#refs[i + 2] = answer.correlationId;
    this.#refs[i + 3] = answer.result;
    if (!entries.has(eventId)) this.#size += 1;
    entries.set(eventId, seq);
  }

  get size(): number {
    return this.#size;
  }

  // Forgets the oldest slot; a key stored again later has a newer seq and stays.
  #forgetOldest(): void {
    const seq = ++this.#first;
    const i = ((seq - 1) % this.#limit) * REFS;
    const entries = this.#refs[i] as Map<string, number>;
    const eventId = this.#refs[i + 1] as string;
    if (entries.get(eventId) === seq) {
      entries.delete(eventId);
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

  // Columns double up to the limit, so a short-lived emulator in a test stays small.
  #grow(needed: number): void {
    if (needed <= this.#storedAt.length) return;
    const size = Math.min(this.#limit, Math.max(64, this.#storedAt.length * 2));
    const storedAt = new Float64Array(size);
    storedAt.set(this.#storedAt);
    this.#storedAt = storedAt;
    const refs = new Array<unknown>(size * REFS).fill(null);
    for (let i = 0; i < this.#refs.length; i++) refs[i] = this.#refs[i];
    this.#refs = refs;
  }
}
