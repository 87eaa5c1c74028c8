import { LoyaltyValidationError } from '../contract/errors.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import type { EncryptionKeyInput } from './record-cipher.js';

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

/** What `onDamage` of `fileStore` is told when the journal it opened was damaged. */
export interface JournalDamage {
  /** The journal, as found, kept aside untouched for inspection (never compacted away). */
  readonly damagedCopy: string;
  /** Records lost: at least one per damaged stretch; every intact record around them was kept. */
  readonly lostRecords: number;
  readonly damagedBytes: number;
}

/** Options of `fileStore`. */
export interface FileStoreOptions extends StoreLimits {
  /**
   * Dead journal bytes (delivered events, superseded state records) that trigger a compaction,
   * once they also outweigh the live bytes. Compaction also runs when the store opens, if there
   * is room for it: a full disk does not stop `start()` or deliveries.
   * @default 4194304 (4 MiB)
   */
  compactAfterBytes?: number;
  /**
   * The journal had damaged records (not just a torn last write): `start()` went on with every
   * intact record, and the damaged file is kept aside. `stats().lostRecords` counts them too.
   */
  onDamage?: (damage: JournalDamage) => void;
  /**
   * A compaction failed (disk full, I/O error): the journal stays as it was, whole, and grows;
   * the next trigger tries again. `cause` is the system error.
   */
  onCompactionError?: (cause: unknown) => void;
  /**
   * Encrypts the journal at rest (AES-256-GCM; the records of one write sealed together, in
   * chunks of at most 4 KiB): 32 bytes, or their base64; a list during a rotation (the first
   * encrypts, any decrypts). Without the right key `start()` refuses with `OutboxStoreError` code
   * `ENCRYPTION_KEY_MISMATCH`. Keep the key out of the store's directory; see docs/outbox.md, "A
   * kiosk's queue at rest".
   * @default undefined (the journal is plain JSON)
   */
  encryptionKey?: EncryptionKeyInput;
}

/** The defaults of every store option, declared once; the `@default` tags repeat these values. */
export const STORE_DEFAULTS = {
  maxEvents: 100_000,
  maxBytes: 64 * 1024 * 1024,
  compactAfterBytes: 4 * 1024 * 1024,
} as const satisfies Required<Omit<FileStoreOptions, 'onDamage' | 'onCompactionError' | 'encryptionKey'>>;

/** Store options with every default filled in and checked. */
export type NormalizedStoreOptions = { readonly [K in keyof typeof STORE_DEFAULTS]: number };

/** Merges the defaults and refuses nonsense early, when the store is created. */
export function normalizeStoreOptions(
  options: StoreLimits & { compactAfterBytes?: number } = {},
): NormalizedStoreOptions {
  const { maxEvents, maxBytes, compactAfterBytes } = mergeDefaults<typeof options>(STORE_DEFAULTS, options);
  const issues = optionIssues([
    wholeNumber('maxEvents', maxEvents, 1),
    wholeNumber('maxBytes', maxBytes, 1, undefined, 'bytes'),
    wholeNumber('compactAfterBytes', compactAfterBytes, 1, undefined, 'bytes'),
  ]);
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid store options', all),
  );
  return { maxEvents, maxBytes, compactAfterBytes };
}
