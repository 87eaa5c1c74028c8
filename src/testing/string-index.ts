/**
 * A string -> slot index for the emulator's bounded records, in two `Int32Array`s (open
 * addressing, linear probing). The key strings stay in the owner's own columns (`keyOf`), so an
 * entry costs 16 bytes at most, where a `Map` that forgets its oldest keys cost ~70: V8 sizes its
 * table by the deleted slots too, so 50,000 live keys sat in a table of 131,072.
 */
export class StringIndex {
  readonly #keyOf: (slot: number) => string;
  // slot + 1 (0: empty) and the key's hash, per position.
  #slots = new Int32Array(64);
  #hashes = new Int32Array(64);
  #size = 0;

  /** `keyOf(slot)` is the key stored at a slot of the owner's columns. */
  constructor(keyOf: (slot: number) => string) {
    this.#keyOf = keyOf;
  }

  get size(): number {
    return this.#size;
  }

  /** The slot of a key, or -1. */
  get(key: string): number {
    const at = this.#find(key, hash(key));
    return at < 0 ? -1 : (this.#slots[at] as number) - 1;
  }

  set(key: string, slot: number): void {
    const h = hash(key);
    const at = this.#find(key, h);
    if (at >= 0) {
      this.#slots[at] = slot + 1;
      return;
    }
    if ((this.#size + 1) * 2 > this.#slots.length) this.#resize(this.#slots.length * 2);
    this.#place(h, slot + 1);
    this.#size += 1;
  }

  delete(key: string): boolean {
    let at = this.#find(key, hash(key));
    if (at < 0) return false;
    const mask = this.#slots.length - 1;
    // Backward-shift deletion: later keys of the probe run move up, so no tombstone is left.
    for (let next = (at + 1) & mask; this.#slots[next] !== 0; next = (next + 1) & mask) {
      const home = (this.#hashes[next] as number) & mask;
      // The key at `next` may move up to `at` only if `at` lies on its probe path from `home`.
      if (((at - home) & mask) <= ((next - home) & mask)) {
        this.#slots[at] = this.#slots[next] as number;
        this.#hashes[at] = this.#hashes[next] as number;
        at = next;
      }
    }
    this.#slots[at] = 0;
    this.#size -= 1;
    return true;
  }

  #find(key: string, h: number): number {
    const mask = this.#slots.length - 1;
    for (let at = h & mask; ; at = (at + 1) & mask) {
      const stored = this.#slots[at] as number;
      if (stored === 0) return -1;
      if (this.#hashes[at] === h && this.#keyOf(stored - 1) === key) return at;
    }
  }

  #place(h: number, stored: number): void {
    const mask = this.#slots.length - 1;
    let at = h & mask;
    while (this.#slots[at] !== 0) at = (at + 1) & mask;
    this.#slots[at] = stored;
    this.#hashes[at] = h;
  }

  #resize(capacity: number): void {
    const slots = this.#slots;
    const hashes = this.#hashes;
    this.#slots = new Int32Array(capacity);
    this.#hashes = new Int32Array(capacity);
    for (let i = 0; i < slots.length; i++)
      if (slots[i] !== 0) this.#place(hashes[i] as number, slots[i] as number);
  }
}

// FNV-1a over the UTF-16 code units: cheap, and spread well enough for ids and UUIDs.
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}
