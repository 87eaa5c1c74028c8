/**
 * A list that keeps its newest `limit` items, found by position: the n-th item pushed (from 0)
 * stays readable until `limit` newer ones have been pushed after it. An array used as a ring.
 */
export class BoundedList<T> {
  readonly #items: T[] = [];
  readonly #limit: number;
  #pushed = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** How many items were ever pushed: the position the next one gets. */
  get pushed(): number {
    return this.#pushed;
  }

  /** How many items are kept. */
  get size(): number {
    return Math.min(this.#pushed, this.#limit);
  }

  push(item: T): void {
    // Until the list is full this appends; after, it overwrites the oldest item.
    this.#items[this.#pushed % this.#limit] = item;
    this.#pushed += 1;
  }

  /** The item at position `n`, or `undefined` when it was never pushed or is forgotten. */
  at(n: number): T | undefined {
    if (n < this.#pushed - this.size || n >= this.#pushed) return undefined;
    return this.#items[n % this.#limit];
  }

  /** The newest `count` items kept (all by default), oldest first. */
  newest(count = this.size): T[] {
    const from = this.#pushed - Math.min(count, this.size);
    return Array.from({ length: this.#pushed - from }, (_, i) => this.#items[(from + i) % this.#limit] as T);
  }
}
