import { DEDUP_WINDOW_MS } from '../contract/limits.js';
import { InsertionQueue } from './insertion-queue.js';

/**
 * How long the response to an `eventId` is replayed (spec 8): 24 hours.
 */
export const RESPONSE_CACHE_TTL_MS = DEDUP_WINDOW_MS;

/** A successful answer to POST /events, kept to be replayed byte for byte. */
export interface CachedResponse {
  status: number;
  body: string;
  correlationId: string;
  storedAt: number;
}

/**
 * The dedup cache of POST /events, per tenant and `eventId`. Only successes are stored: a failed
 * delivery is never cached, so a redelivery after the setup is fixed is processed afresh.
 * Entries are kept in the order stored, so expired ones are swept from the front as new ones
 * arrive, and at most `limit` are kept: memory stays flat however long the emulator runs.
 */
export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #now: () => number;
  readonly #limit: number;
  readonly #order = new InsertionQueue<{ key: string; storedAt: number }>();

  constructor(now: () => number, limit: number) {
    this.#now = now;
    this.#limit = limit;
  }

  get(tenantId: string, eventId: string): CachedResponse | undefined {
    const key = `${tenantId}\u0000${eventId}`;
    const entry = this.#entries.get(key);
    if (entry && this.#now() - entry.storedAt >= RESPONSE_CACHE_TTL_MS) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(tenantId: string, eventId: string, entry: Omit<CachedResponse, 'storedAt'>): void {
    const now = this.#now();
    const key = `${tenantId}\u0000${eventId}`;
    this.#entries.set(key, { ...entry, storedAt: now });
    this.#order.push({ key, storedAt: now });
    this.#sweep(now);
  }

  get size(): number {
    return this.#entries.size;
  }

  // Forgets from the oldest: what expired, then whatever exceeds the limit.
  #sweep(now: number): void {
    for (let oldest = this.#order.peek(); oldest !== undefined; oldest = this.#order.peek()) {
      const expired = now - oldest.storedAt >= RESPONSE_CACHE_TTL_MS;
      if (!expired && this.#entries.size <= this.#limit) return;
      this.#order.shift();
      // A key stored again later is queued again: only its own, latest entry may go.
      if (this.#entries.get(oldest.key)?.storedAt === oldest.storedAt) this.#entries.delete(oldest.key);
    }
  }
}
