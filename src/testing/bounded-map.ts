/**
 * A `Map` that keeps its newest `limit` keys: setting a new key past the limit deletes the oldest
 * (a `Map` keeps insertion order). Setting a key already kept replaces its value where it stands.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #limit: number;
  // One iterator for the life of the map, always on the oldest key kept: an eviction costs the
  // same however long the emulator has run (a fresh `keys()` per eviction got slower with time).
  readonly #oldest: Iterator<K>;

  constructor(limit: number) {
    super();
    this.#limit = limit;
    this.#oldest = this.keys();
  }

  override set(key: K, value: V): this {
    super.set(key, value);
    if (this.size > this.#limit) this.delete(this.#oldest.next().value as K);
    return this;
  }
}
