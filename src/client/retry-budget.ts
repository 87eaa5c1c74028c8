/**
 * A token bucket shared by every call of one client: a retry spends a token, an answer that is not
 * a retryable failure returns `refillPerSuccess`. While the service is down the bucket empties and
 * each call fails fast after one attempt, instead of every caller multiplying the load.
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
