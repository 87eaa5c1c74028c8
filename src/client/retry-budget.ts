/**
 * A token bucket shared by every call of one client. A retry spends one token; an answer that is
 * not a retryable failure returns `refillPerSuccess`. When the service is down nothing refills,
 * the bucket empties after `capacity` retries, and from then on each call makes one attempt and
 * fails fast with a retryable error, instead of every caller multiplying the load with retries.
 */
export class RetryBudget {
  #tokens: number;

  constructor(private readonly settings: { capacity: number; refillPerSuccess: number }) {
    this.#tokens = settings.capacity;
  }

  /** Takes a token for one retry; `false` when the budget is spent. */
  tryAcquire(): boolean {
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  /** The service answered something final: it is up, so retries may come back. */
  onSuccess(): void {
    this.#tokens = Math.min(this.settings.capacity, this.#tokens + this.settings.refillPerSuccess);
  }
}
