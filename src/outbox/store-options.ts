/** Limits shared by `fileStore` and `memoryStore`. */
export interface StoreLimits {
  /**
   * Most events the store holds at once, whatever their state (pending, parked, dead, expired).
   * @default 100000
   */
  maxEvents?: number;
  /**
   * Most bytes of stored events (their journal records). The journal file itself stays below
   * about twice this plus `compactAfterBytes`, because compaction runs once dead space passes both.
   * @default 67108864 (64 MiB)
   */
  maxBytes?: number;
}

/** Options of `fileStore`. */
export interface FileStoreOptions extends StoreLimits {
  /**
   * Dead journal bytes (delivered events, superseded state records) that trigger a compaction,
   * once they also outweigh the live bytes. Compaction also runs every time the store opens.
   * @default 4194304 (4 MiB)
   */
  compactAfterBytes?: number;
}

/**
 * The defaults of every store option, declared once; the `@default` tags repeat these values.
 *
 * @example
 * ```ts
 * import { STORE_DEFAULTS } from 'loyalty-partner-sdk/outbox';
 * console.log(STORE_DEFAULTS.maxEvents); // 100000
 * ```
 */
export const STORE_DEFAULTS = {
  maxEvents: 100_000,
  maxBytes: 64 * 1024 * 1024,
  compactAfterBytes: 4 * 1024 * 1024,
} as const satisfies Required<FileStoreOptions>;

/** Store options with every default filled in and checked. */
export type NormalisedStoreOptions = { readonly [K in keyof typeof STORE_DEFAULTS]: number };

/** Merges the defaults and refuses nonsense early, when the store is created. */
export function normaliseStoreOptions(options: FileStoreOptions = {}): NormalisedStoreOptions {
  const merged = {
    maxEvents: options.maxEvents ?? STORE_DEFAULTS.maxEvents,
    maxBytes: options.maxBytes ?? STORE_DEFAULTS.maxBytes,
    compactAfterBytes: options.compactAfterBytes ?? STORE_DEFAULTS.compactAfterBytes,
  };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`${name} must be a positive integer`);
    }
  }
  return merged;
}
