import { DEDUP_WINDOW_MS } from '../contract/limits.js';
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
 */
export class ResponseCache {
  readonly #entries = new Map<string, CachedResponse>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
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
    this.#entries.set(`${tenantId}\u0000${eventId}`, { ...entry, storedAt: this.#now() });
  }
}
