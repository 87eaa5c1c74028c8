import { constants } from 'node:fs';
import { access, copyFile, type FileHandle, link, open, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { GroupCommit } from '../internal/group-commit.js';
import { directoryError, OutboxClosedError, OutboxLockedError, OutboxStoreError } from './errors.js';
import { EventTable, type JournalRecord } from './event-table.js';
import { chunked, makeDirectory, readIfExists, replaceFileDurably, writeAll } from './file-durable.js';
import { acquireDirLock } from './file-lock.js';
import { decodeJournal, encodeRecord, JOURNAL_MAGIC } from './journal-codec.js';
import type { EventPatch, LocalStore, StoredEvent, StoredTenantStop, StoreSnapshot } from './store.js';
import {
  type FileStoreOptions,
  type NormalizedStoreOptions,
  normalizeStoreOptions,
} from './store-options.js';

const JOURNAL_FILE = 'outbox.journal';

/**
 * A durable store in a directory of its own: an append-only journal (`outbox.journal`), each
 * record framed with its length and CRC-32, synced to disk before any promise resolves. Records
 * submitted while a flush is under way are written together by the next one (group commit): one
 * write and one fsync for the whole group. A torn last record is dropped when the journal is
 * read; the journal is compacted (live records rewritten, synced, renamed over) when it opens and
 * whenever dead space outgrows the live records and `compactAfterBytes`. A pid lock file keeps a
 * second process out; the lock of a process that died is taken over. No native dependency.
 *
 * @example
 * ```ts
 * import { fileStore } from 'loyalty-partner-sdk/outbox';
 * const store = fileStore('/var/lib/pos/loyalty-outbox', { maxEvents: 50_000, maxBytes: 32 * 1024 * 1024 });
 * ```
 */
export function fileStore(dir: string, options: FileStoreOptions = {}): FileStore {
  const { onDamage, onCompactionError } = options;
  return new JournalStore(resolve(dir), normalizeStoreOptions(options), { onDamage, onCompactionError });
}

/**
 * Counters of the file store's journal, for monitoring, tests and benchmarks.
 */
export interface JournalStats {
  readonly events: number;
  /** Bytes of the live events as the store accounts them against `maxBytes`. */
  readonly bytes: number;
  readonly maxEvents: number;
  readonly maxBytes: number;
  /** Durable flushes (one write + one fsync for a whole group of records). */
  readonly flushes: number;
  /** Records written, summed over all flushes. */
  readonly records: number;
  readonly compactions: number;
  /** Bytes of a torn last record dropped when the journal was opened. */
  readonly recoveredBytes: number;
  /** Records lost to damage found when the journal was opened (see `onDamage`). */
  readonly lostRecords: number;
  /** Compactions that failed (see `onCompactionError`); the journal stayed whole. */
  readonly failedCompactions: number;
}

/**
 * What `fileStore` returns: a local store with its journal's counters.
 *
 * @example
 * ```ts
 * import { fileStore, type FileStore } from 'loyalty-partner-sdk/outbox';
 * const store: FileStore = fileStore('/var/lib/pos/loyalty-outbox');
 * ```
 */
export interface FileStore extends LocalStore {
  stats(): JournalStats;
}

interface Submission {
  readonly record: JournalRecord;
  readonly frame: Uint8Array;
  /** Bytes an append reserved against `maxBytes`, released when the record is applied. */
  readonly reserved: number;
}

class JournalStore implements FileStore {
  readonly kind = 'local';
  private readonly table: EventTable;
  private readonly path: string;
  private readonly commits = new GroupCommit<Submission>(
    (batch) => this.write(batch),
    () => this.compactIfWorthIt(),
  );
  private handle: FileHandle | undefined;
  private releaseLock: (() => Promise<void>) | undefined;
  private fileBytes = 0;
  private broken: unknown;
  private closed = false;
  private readonly counters = {
    flushes: 0,
    records: 0,
    compactions: 0,
    recoveredBytes: 0,
    lostRecords: 0,
    failedCompactions: 0,
  };

  constructor(
    private readonly dir: string,
    private readonly options: NormalizedStoreOptions,
    private readonly hooks: Pick<FileStoreOptions, 'onDamage' | 'onCompactionError'>,
  ) {
    this.table = new EventTable(options);
    this.path = join(dir, JOURNAL_FILE);
  }

  async open(): Promise<StoreSnapshot> {
    if (this.releaseLock || this.closed)
      throw new OutboxStoreError(`The store ${this.dir} was opened already`);
    try {
      await makeDirectory(this.dir);
      await access(this.dir, constants.W_OK);
      this.releaseLock = await acquireDirLock(this.dir);
    } catch (err) {
      throw err instanceof OutboxLockedError ? err : directoryError(this.dir, err);
    }
    try {
      const bytes = await readIfExists(this.path);
      const decoded = decodeJournal(bytes);
      if (!decoded.isJournal)
        throw new OutboxStoreError(`${this.path} is not an outbox journal; move it away`);
      for (const { record, size } of decoded.records) this.table.apply(record, size);
      this.counters.recoveredBytes = decoded.droppedBytes;
      if (decoded.damagedRegions > 0) await this.keepDamaged(decoded.damagedRegions, decoded.damagedBytes);
      this.handle = await open(this.path, 'a');
      this.fileBytes = (await this.handle.stat()).size;
      if (this.fileBytes === 0) {
        await writeAll(this.handle, JOURNAL_MAGIC);
        await this.handle.datasync();
        this.fileBytes = JOURNAL_MAGIC.length;
      }
      // Cut a torn tail before appending after it; then compact if the disk has room.
      if (decoded.droppedBytes > 0 && decoded.damagedRegions === 0) {
        await this.handle.truncate(this.fileBytes - decoded.droppedBytes);
        this.fileBytes -= decoded.droppedBytes;
      }
      await this.compactOrReport();
    } catch (err) {
      await this.handle?.close();
      await this.releaseLock();
      this.releaseLock = undefined;
      throw err instanceof OutboxStoreError
        ? err
        : new OutboxStoreError(`Cannot open ${this.path}`, { cause: err, dir: this.dir });
    }
    return this.table.snapshot();
  }

  /**
   * Keeps the damaged journal as found, under another name, before anything rewrites it: a hard
   * link costs no space (a full disk cannot stop it); a copy where links are not supported.
   */
  private async keepDamaged(regions: number, damagedBytes: number): Promise<void> {
    const damagedCopy = `${this.path}.damaged-${Date.now()}`;
    await link(this.path, damagedCopy).catch(() => copyFile(this.path, damagedCopy));
    this.counters.lostRecords += regions;
    try {
      this.hooks.onDamage?.({ damagedCopy, lostRecords: regions, damagedBytes });
    } catch {
      // An observer's failure must not stop the store.
    }
  }

  private async compactOrReport(): Promise<void> {
    try {
      await this.compact();
    } catch (err) {
      this.counters.failedCompactions += 1;
      try {
        this.hooks.onCompactionError?.(err);
      } catch {
        // An observer's failure must not stop the store.
      }
    }
  }

  async append(event: StoredEvent): Promise<void> {
    const record: JournalRecord = { op: 'put', event };
    const frame = encodeRecord(record);
    this.table.reserve(frame.length);
    return this.submit({ record, frame, reserved: frame.length });
  }

  update(eventId: string, patch: EventPatch): Promise<void> {
    return this.submit(plain({ op: 'patch', id: eventId, patch }));
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    await Promise.all(eventIds.map((id) => this.submit(plain({ op: 'del', id }))));
  }

  setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void> {
    return this.submit(plain({ op: 'tenant', id: tenantId, stop }));
  }

  stats(): JournalStats {
    const { maxEvents, maxBytes } = this.options;
    return { events: this.table.size, bytes: this.table.bytes, maxEvents, maxBytes, ...this.counters };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.commits.idle();
    await this.handle?.close();
    this.handle = undefined;
    await this.releaseLock?.();
    this.releaseLock = undefined;
  }

  private submit(submission: Submission): Promise<void> {
    let refusal: Error | undefined;
    if (this.closed) refusal = new OutboxClosedError();
    else if (!this.releaseLock)
      refusal = new OutboxStoreError('The store is not open (outbox.start() opens it)');
    else if (this.broken) refusal = new OutboxStoreError(`Cannot write ${this.path}`, { cause: this.broken });
    if (refusal) {
      if (submission.reserved) this.table.release(submission.reserved);
      return Promise.reject(refusal);
    }
    return this.commits.submit(submission);
  }

  /** One group: one write, one fsync, then the records count. */
  private async write(batch: readonly Submission[]): Promise<void> {
    const bytes = batch.length === 1 ? batch[0]!.frame : Buffer.concat(batch.map((item) => item.frame));
    try {
      if (!this.handle) throw this.broken ?? new Error('journal not open');
      await writeAll(this.handle, bytes);
      await this.handle.datasync();
      this.fileBytes += bytes.length;
      this.counters.flushes += 1;
      this.counters.records += batch.length;
    } catch (err) {
      // Cut off whatever part of the group reached the file, so later records are not stranded
      // behind a torn one; if even that fails, stop writing rather than risk it.
      await this.handle?.truncate(this.fileBytes).catch((truncateError: unknown) => {
        this.broken = truncateError;
      });
      for (const item of batch) if (item.reserved) this.table.release(item.reserved);
      throw new OutboxStoreError(`Cannot write the journal ${this.path}`, { cause: err });
    }
    for (const item of batch) {
      if (item.reserved) this.table.release(item.reserved);
      this.table.apply(item.record, item.frame.length);
    }
  }

  private async compactIfWorthIt(): Promise<void> {
    const dead = this.fileBytes - JOURNAL_MAGIC.length - this.table.bytes;
    // If compaction fails, the old journal is still whole; the next trigger tries again.
    if (dead > this.options.compactAfterBytes && dead > this.table.bytes) await this.compactOrReport();
  }

  /** Rewrites the live records into a new journal and swaps it in atomically. */
  private async compact(): Promise<void> {
    const records = this.table.liveRecords();
    const frames = records.map(encodeRecord);
    await this.handle?.close();
    this.handle = undefined;
    try {
      await replaceFileDurably(this.dir, this.path, chunked([JOURNAL_MAGIC, ...frames]));
      for (const [i, record] of records.entries()) this.table.apply(record, frames[i]!.length);
      this.counters.compactions += 1;
    } catch (err) {
      await unlink(`${this.path}.tmp`).catch(() => undefined);
      throw err;
    } finally {
      try {
        this.handle = await open(this.path, 'a');
        this.fileBytes = (await this.handle.stat()).size;
      } catch (err) {
        this.broken = err;
      }
    }
  }
}

function plain(record: JournalRecord): Submission {
  return { record, frame: encodeRecord(record), reserved: 0 };
}
