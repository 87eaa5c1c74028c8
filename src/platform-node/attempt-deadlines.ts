/** An attempt that {@link AttemptDeadlines} watches. The list links live on it: watching allocates nothing. */
export interface Watched {
  deadline: number;
  prev: Watched | undefined;
  next: Watched | undefined;
  /** Called once, when the deadline passed before `unwatch`. */
  expire(): void;
}

/**
 * The per-attempt timeout of one transport, for all its attempts at once: a list in deadline
 * order and one timer armed for the earliest. Every attempt of a client has the same timeout, so
 * a new attempt always has the latest deadline and joins at the tail, and one that ends leaves
 * from wherever it is: both O(1).
 *
 * Why not an `AbortController` and a `setTimeout` per attempt: on a loopback server those (and
 * the abort listeners linking them) cost about 8 µs of CPU per request, a third of undici's own
 * cost of a request (24 µs; `npm run bench`). Here the timer fires about once per `timeoutMs`
 * while requests flow, and is cleared whenever nothing is in flight, so it never holds a
 * process open.
 */
export class AttemptDeadlines {
  #head: Watched | undefined;
  #tail: Watched | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly timeoutMs: number) {}

  /** Starts the clock of `item`: it expires `timeoutMs` from now unless unwatched first. */
  watch(item: Watched): void {
    item.deadline = performance.now() + this.timeoutMs;
    item.prev = this.#tail;
    item.next = undefined;
    if (this.#tail) this.#tail.next = item;
    else this.#head = item;
    this.#tail = item;
    this.#timer ??= setTimeout(this.#sweep, this.timeoutMs);
  }

  /** Stops the clock of `item`; does nothing if it is not watched (any more). */
  unwatch(item: Watched): void {
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
      this.unwatch(item);
      item.expire();
    }
    // The timer may fire a little before performance.now() reaches the deadline: wait the rest.
    if (this.#head) this.#timer ??= setTimeout(this.#sweep, Math.ceil(this.#head.deadline - now));
  };
}
