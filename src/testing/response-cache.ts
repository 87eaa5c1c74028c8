import { trimOldestEntries } from './history.js';

/**
 * How long the response to an `eventId` is replayed (spec 8): 24 hours.
 *
 * @example
 * ```ts
 * import { createEmulator, RESPONSE_CACHE_TTL_MS } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator({ clock: 'manual' });
 * await emulator.advance(RESPONSE_CACHE_TTL_MS); // the same eventId is now processed afresh
 * ```
 */
export const RESPONSE_CACHE_TTL_MS = 24 * 60 * 60_000;

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
    // Re-inserted at the back, so the front stays the oldest.
    this.#entries.delete(key);
    this.#entries.set(key, { ...entry, storedAt: now });
    this.#sweep(now);
    trimOldestEntries(this.#entries, this.#limit);
  }

  get size(): number {
    return this.#entries.size;
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) {
      if (now - entry.storedAt < RESPONSE_CACHE_TTL_MS) return;
      this.#entries.delete(key);
    }
  }
}
