/**
 * Keys in the order they were first stored, taken from the front: how a bounded `Map` forgets its
 * oldest entries. Iterating a `Map` from its start after many deletions walks over every deleted
 * slot until the table is rebuilt, so a queue beside it keeps each eviction O(1).
 */
export class InsertionQueue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  push(item: T): void {
    this.#items.push(item);
  }

  /** The oldest item still queued, without taking it. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    // Compact once the taken half outweighs the rest: amortised O(1) per item.
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
}
