import { codedError } from '../contract/errors.js';
import { codeOf } from '../internal/code-of.js';
import type { EventState } from './store.js';

/**
 * `enqueue` refused because the store holds `maxEvents` events or the new one would take it past
 * `maxBytes`. Nothing was stored and nothing was dropped: deliver, redeliver or discard first.
 *
 * @example
 * ```ts
 * import { OutboxFullError } from 'loyalty-partner-sdk/outbox';
 * function onEnqueueError(err: unknown) {
 *   if (err instanceof OutboxFullError) console.warn(`outbox full (${err.limit} = ${err.max})`);
 * }
 * ```
 */
export class OutboxFullError extends codedError('OutboxFullError') {
  readonly code = 'OUTBOX_FULL';
  constructor(
    readonly limit: 'maxEvents' | 'maxBytes',
    readonly max: number,
  ) {
    super(`The outbox is full (${limit} ${max}); the event was not stored. Nothing was dropped.`);
  }
}

/**
 * The outbox was closed (or is closing): it takes no new events. What it held stays on disk.
 *
 * @example
 * ```ts
 * import { OutboxClosedError } from 'loyalty-partner-sdk/outbox';
 * const isClosed = (err: unknown) => err instanceof OutboxClosedError;
 * ```
 */
export class OutboxClosedError extends codedError('OutboxClosedError') {
  readonly code = 'OUTBOX_CLOSED';
  constructor() {
    super('The outbox is closed; it takes no new events');
  }
}

/**
 * `enqueue` (or a listing) was called before `outbox.start()` loaded the store.
 *
 * @example
 * ```ts
 * import { OutboxNotStartedError } from 'loyalty-partner-sdk/outbox';
 * const notStarted = (err: unknown) => err instanceof OutboxNotStartedError;
 * ```
 */
export class OutboxNotStartedError extends codedError('OutboxNotStartedError') {
  readonly code = 'OUTBOX_NOT_STARTED';
  constructor() {
    super('Call outbox.start() before using the outbox');
  }
}

/**
 * Another live process (or another store in this process) holds the store directory's lock.
 *
 * @example
 * ```ts
 * import { OutboxLockedError } from 'loyalty-partner-sdk/outbox';
 * const locked = (err: unknown) => err instanceof OutboxLockedError && err.pid !== undefined;
 * ```
 */
export class OutboxLockedError extends codedError('OutboxLockedError') {
  readonly code = 'OUTBOX_LOCKED';
  constructor(
    readonly dir: string,
    readonly pid: number | undefined,
  ) {
    super(`The outbox directory ${dir} is in use by process ${pid ?? 'unknown'}`);
  }
}

/**
 * The store could not read or write its journal (disk full, permissions, not a journal). The
 * operation did not happen; `cause` holds the system error. `code` is `ENCRYPTION_KEY_MISMATCH`
 * when an encrypted journal was opened without its key (or with another one): `start()` changed
 * no file; give `fileStore` the key the journal was written with.
 *
 * @example
 * ```ts
 * import { OutboxStoreError } from 'loyalty-partner-sdk/outbox';
 * const diskTrouble = (err: unknown) => err instanceof OutboxStoreError;
 * ```
 */
export class OutboxStoreError extends codedError('OutboxStoreError') {
  readonly code: 'OUTBOX_STORE_FAILED' | 'ENCRYPTION_KEY_MISMATCH';
  /** The store's directory, when the trouble is with it (read-only, not writable, missing). */
  readonly dir: string | undefined;
  /** The system error code behind it (`EROFS`, `EACCES`, `ENOSPC`, ...), when there is one. */
  readonly errno: string | undefined;
  constructor(
    message: string,
    options?: { cause?: unknown; dir?: string; code?: 'ENCRYPTION_KEY_MISMATCH' },
  ) {
    super(message, options);
    this.code = options?.code ?? 'OUTBOX_STORE_FAILED';
    this.dir = options?.dir;
    this.errno = codeOf(options?.cause) || undefined;
  }
}

/** What to do about a directory the store cannot use, by system error code. */
const DIRECTORY_FIXES: Readonly<Record<string, string>> = {
  EROFS: 'is on a read-only file system; give fileStore a directory on a writable disk',
  EACCES: 'is not writable by this process; grant it write permission or choose another directory',
  EPERM: 'is not writable by this process; grant it write permission or choose another directory',
  ENOENT: 'does not exist and cannot be created; create it (and its parents) first',
  ENOTDIR: 'has a file where a directory should be; remove the file or choose another path',
  ENOSPC: 'is on a full disk; free some space',
};

/** The typed form of a system error met while opening the store's directory. */
export function directoryError(dir: string, cause: unknown): OutboxStoreError {
  const code = codeOf(cause);
  const fix = DIRECTORY_FIXES[code];
  const message = fix
    ? `The outbox directory ${dir} ${fix} (${code})`
    : `Cannot open the outbox directory ${dir}`;
  return new OutboxStoreError(message, { cause, dir });
}

/**
 * `redeliver` or `discard` named an event the outbox does not hold in a state that allows it.
 *
 * @example
 * ```ts
 * import { OutboxEventStateError } from 'loyalty-partner-sdk/outbox';
 * const wrongState = (err: unknown) => err instanceof OutboxEventStateError && err.state === 'pending';
 * ```
 */
export class OutboxEventStateError extends codedError('OutboxEventStateError') {
  readonly code = 'OUTBOX_EVENT_STATE';
  constructor(
    readonly eventId: string,
    readonly state: EventState | 'in-flight' | 'unknown',
    action: string,
  ) {
    super(`Cannot ${action} event ${eventId}: it is ${state === 'unknown' ? 'not in the outbox' : state}`);
  }
}

/**
 * `redeliver` of an expired event without `acceptDuplicateRisk: true`. Its first attempt is older
 * than the service's dedup window may remember, so a new attempt could credit it twice.
 *
 * @example
 * ```ts
 * import { OutboxDuplicateRiskError } from 'loyalty-partner-sdk/outbox';
 * const needsDecision = (err: unknown) => err instanceof OutboxDuplicateRiskError;
 * ```
 */
export class OutboxDuplicateRiskError extends codedError('OutboxDuplicateRiskError') {
  readonly code = 'OUTBOX_DUPLICATE_RISK';
  constructor(readonly eventId: string) {
    super(
      `Event ${eventId} expired: its first attempt may be past the service's 24-hour dedup window. ` +
        'Pass { acceptDuplicateRisk: true } to send it anyway, or discard it.',
    );
  }
}
