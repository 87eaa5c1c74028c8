/**
 * A `Map` that keeps its newest `limit` keys: setting a new key past the limit deletes the oldest
 * (a `Map` keeps insertion order). Setting a key already kept replaces its value where it stands.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly #limit: number;
  // One iterator for the map's life, on the oldest key: a fresh `keys()` per eviction slowed with time.
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
