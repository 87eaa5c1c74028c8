import { DEDUP_WINDOW_MS } from '../contract/limits.js';
import { InsertionQueue } from './insertion-queue.js';

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

// One object per cached answer: the answer, and what the sweep needs to find and forget it.
interface Entry extends CachedResponse {
  tenantId: string;
  eventId: string;
  storedAt: number;
}

/**
 * The dedup cache of POST /events, per tenant and `eventId`. Only successes are stored: a failed
 * delivery is never cached, so a redelivery after the setup is fixed is processed afresh.
 * Entries are kept in the order stored, so expired ones are swept from the front as new ones
 * arrive, and at most `limit` are kept: memory stays flat however long the emulator runs.
 */
export class ResponseCache {
  // Per tenant, then by eventId: no `tenant + eventId` key string is built per event.
  readonly #tenants = new Map<string, Map<string, Entry>>();
  readonly #now: () => number;
  readonly #limit: number;
  readonly #order = new InsertionQueue<Entry>();
  #size = 0;

  constructor(now: () => number, limit: number) {
    this.#now = now;
    this.#limit = limit;
  }

  get(tenantId: string, eventId: string): CachedResponse | undefined {
    const entry = this.#tenants.get(tenantId)?.get(eventId);
    if (entry && this.#now() - entry.storedAt >= RESPONSE_CACHE_TTL_MS) {
      this.#forget(entry);
      return undefined;
    }
    return entry;
  }

  set(tenantId: string, eventId: string, answer: CachedResponse): void {
    const now = this.#now();
    let entries = this.#tenants.get(tenantId);
    if (!entries) {
      entries = new Map();
      this.#tenants.set(tenantId, entries);
    }
    // Built field by field: a spread gave every entry a hidden class of its own in V8.
    const entry: Entry = {
      result: answer.result,
      correlationId: answer.correlationId,
      tenantId,
      eventId,
      storedAt: now,
    };
    if (!entries.has(eventId)) this.#size += 1;
    entries.set(eventId, entry);
    this.#order.push(entry);
    this.#sweep(now);
  }

  get size(): number {
    return this.#size;
  }

  #forget(entry: Entry): void {
    const entries = this.#tenants.get(entry.tenantId);
    // A key stored again later is queued again: only its own, latest entry may go.
    if (entries?.get(entry.eventId) !== entry) return;
    entries.delete(entry.eventId);
    this.#size -= 1;
  }

  // Forgets from the oldest: what expired, then whatever exceeds the limit.
  #sweep(now: number): void {
    for (let oldest = this.#order.peek(); oldest !== undefined; oldest = this.#order.peek()) {
      const expired = now - oldest.storedAt >= RESPONSE_CACHE_TTL_MS;
      if (!expired && this.#size <= this.#limit) return;
      this.#order.shift();
      this.#forget(oldest);
    }
  }
}
