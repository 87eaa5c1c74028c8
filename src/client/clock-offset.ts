/**
 * The largest clock offset the client believes: 24 hours either way. A `Date` further off is more
 * likely wrong (a proxy's broken clock) than the till; it is refused (`onClockSkew` with
 * `applied: false`) and the call fails with the `SIGNATURE_EXPIRED` answer.
 */
export const MAX_CLOCK_OFFSET_MS = 24 * 60 * 60 * 1000;

/** What one `Date` header taught: nothing, an offset now in use, or one refused as implausible. */
export type ClockLesson =
  | { kind: 'unreadable' }
  | { kind: 'applied'; offsetMs: number }
  | { kind: 'refused'; offsetMs: number };

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
   * Learns the offset from an HTTP `Date` header (exact to about a second, far inside the 300 s
   * tolerance); `unreadable` or `refused` (past {@link MAX_CLOCK_OFFSET_MS}) change nothing.
   */
  learnFrom(dateHeader: string | null): ClockLesson {
    const serverMs = dateHeader ? Date.parse(dateHeader) : Number.NaN;
    if (!Number.isFinite(serverMs)) return { kind: 'unreadable' };
    const offsetMs = serverMs - this.wallClock();
    if (!(Math.abs(offsetMs) <= MAX_CLOCK_OFFSET_MS)) return { kind: 'refused', offsetMs };
    this.#offsetMs = offsetMs;
    return { kind: 'applied', offsetMs };
  }
}
