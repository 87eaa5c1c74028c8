/**
 * The difference between the service's clock and this machine's, learned from the `Date` header
 * of a `401 SIGNATURE_EXPIRED`, and added to the timestamp of every later signature. A till whose
 * clock is 20 minutes off would otherwise be refused forever (the tolerance is 5 minutes).
 */
export class ClockOffset {
  #offsetMs = 0;

  constructor(private readonly wallClock: () => number) {}

  /** Service clock minus local clock, in milliseconds. */
  get offsetMs(): number {
    return this.#offsetMs;
  }

  /** The corrected time, epoch milliseconds. */
  now(): number {
    return this.wallClock() + this.#offsetMs;
  }

  /** The corrected time in whole unix seconds, for `t=` of a signature. */
  unixSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  /**
   * Learns the offset from an HTTP `Date` header value (whole seconds, so the result is exact to
   * about a second, far inside the 300 s tolerance). Returns `false` when the header is missing
   * or not a date, in which case nothing changes.
   */
  learnFrom(dateHeader: string | null): boolean {
    const serverMs = dateHeader ? Date.parse(dateHeader) : Number.NaN;
    if (!Number.isFinite(serverMs)) return false;
    this.#offsetMs = serverMs - this.wallClock();
    return true;
  }
}
