import { DEDUP_WINDOW_MS } from '../contract/limits.js';
import { BoundedMap } from './bounded-map.js';

/** A successful answer to POST /events, replayed byte for byte through `processedBody`. */
export interface CachedResponse {
  /** The handler's `result`, never changed after it answered; `undefined` when it had none. */
  result: Readonly<Record<string, unknown>> | undefined;
  correlationId: string;
}

/** The body of a processed event, as the service answers it and replays it. */
export function processedBody(eventId: string, result: CachedResponse['result']): string {
  return JSON.stringify({ eventId, status: 'Processed', ...(result && { result }) });
}

/**
 * The dedup cache of POST /events, per tenant and `eventId`: each tenant's newest `limit` answers,
 * each for the contract's 24-hour dedup window (spec 8). Only successes are stored, so a
 * redelivery after the setup is fixed is processed afresh.
 */
export class ResponseCache {
  readonly #tenants = new Map<string, BoundedMap<string, CachedResponse & { storedAt: number }>>();
  readonly #now: () => number;
  readonly #limit: number;

  constructor(now: () => number, limit: number) {
    this.#now = now;
    this.#limit = limit;
  }

  get(tenantId: string, eventId: string): CachedResponse | undefined {
    const answers = this.#tenants.get(tenantId);
    const stored = answers?.get(eventId);
    if (stored === undefined || this.#now() - stored.storedAt < DEDUP_WINDOW_MS) return stored;
    answers?.delete(eventId);
    return undefined;
  }

  set(tenantId: string, eventId: string, answer: CachedResponse): void {
    const answers = this.#tenants.get(tenantId) ?? new BoundedMap(this.#limit);
    this.#tenants.set(tenantId, answers);
    // Deleted first, so an answer stored again counts as the newest.
    answers.delete(eventId);
    answers.set(eventId, { ...answer, storedAt: this.#now() });
  }

  /** How many answers are kept, expired ones not yet read included. */
  get size(): number {
    let size = 0;
    for (const answers of this.#tenants.values()) size += answers.size;
    return size;
  }
}
