/** An attempt that {@link InFlightAttempts} tracks. The list links live on it: tracking allocates nothing. */
export interface Tracked {
  deadline: number;
  prev: Tracked | undefined;
  next: Tracked | undefined;
  /** Its deadline passed before it was deleted. */
  expire(): void;
  /** The client closed while it was in flight. */
  cancel(reason: unknown): void;
}

/**
 * The attempts one transport has in flight, kept for two things that concern them all: the
 * per-attempt timeout, and `close()`. They form a list in deadline order with one timer armed
 * for the earliest. Every attempt of a client has the same timeout, so a new one always has the
 * latest deadline and joins at the tail, and one that ends leaves from wherever it is: both O(1).
 * The client's own signal is listened to once, here, and cancels everything in flight.
 *
 * Why not an `AbortController`, a `setTimeout` and abort listeners per attempt: on a loopback
 * server they cost about 8 µs of CPU per request, a third of undici's own cost of a request
 * (24 µs; `npm run bench`). Here the timer fires about once per `timeoutMs` while requests flow,
 * and is cleared whenever nothing is in flight, so it never holds a process open.
 */
export class InFlightAttempts {
  #head: Tracked | undefined;
  #tail: Tracked | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly timeoutMs: number,
    /** The client's own signal, which `close()` aborts. */
    readonly closed: AbortSignal,
  ) {
    closed.addEventListener('abort', () => {
      for (let item = this.#head; item; item = this.#head) {
        this.delete(item);
        item.cancel(closed.reason);
      }
    });
  }

  /** Starts the clock of `item`: it expires `timeoutMs` from now unless deleted first. */
  add(item: Tracked): void {
    item.deadline = performance.now() + this.timeoutMs;
    item.prev = this.#tail;
    item.next = undefined;
    if (this.#tail) this.#tail.next = item;
    else this.#head = item;
    this.#tail = item;
    this.#timer ??= setTimeout(this.#sweep, this.timeoutMs);
  }

  /** Stops tracking `item`; does nothing if it is not tracked (any more). */
  delete(item: Tracked): void {
    if (item.prev) item.prev.next = item.next;
    else if (this.#head === item) this.#head = item.next;
    else return;
    if (item.next) item.next.prev = item.prev;
    else this.#tail = item.prev;
    item.prev = item.next = undefined;
    if (!this.#head && this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  readonly #sweep = (): void => {
    this.#timer = undefined;
    const now = performance.now();
    for (let item = this.#head; item && item.deadline <= now; item = this.#head) {
      this.delete(item);
      item.expire();
    }
    // The timer may fire a little before performance.now() reaches the deadline: wait the rest.
    if (this.#head) this.#timer ??= setTimeout(this.#sweep, Math.ceil(this.#head.deadline - now));
  };
}
