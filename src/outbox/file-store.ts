import { constants } from 'node:fs';
import { access, copyFile, type FileHandle, link, open, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { callHook } from '../contract/call-hook.js';
import { GroupCommit } from '../internal/group-commit.js';
import { directoryError, OutboxClosedError, OutboxLockedError, OutboxStoreError } from './errors.js';
import { EventTable, type JournalRecord } from './event-table.js';
import { chunked, makeDirectory, readIfExists, replaceFileDurably, writeAll } from './file-durable.js';
import { acquireDirLock } from './file-lock.js';
import {
  type DecodedJournal,
  decodeEncryptedJournal,
  decodeJournal,
  ENCRYPTED_HEADER_BYTES,
  encodeBody,
  encryptedHeader,
  frameBody,
  JOURNAL_MAGIC,
  journalKind,
  NOTHING,
  newJournalId,
  recordBytes,
  sealedChunks,
} from './journal-codec.js';
import { normalizeEncryptionKeys, RecordCipher } from './record-cipher.js';
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
  const { onDamage, onCompactionError, encryptionKey } = options;
  const limits = normalizeStoreOptions(options);
  const cipher =
    encryptionKey === undefined ? undefined : new RecordCipher(normalizeEncryptionKeys(encryptionKey));
  return new JournalStore(resolve(dir), limits, { onDamage, onCompactionError }, cipher);
}

/** Counters of the file store's journal, for monitoring, tests and benchmarks. */
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
  readonly body: Uint8Array;
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
  /** The journal file now open is encrypted: its id, and the number of its next frame. */
  private sealing: { journalId: Uint8Array; nextFrameNo: number } | undefined;
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
    private readonly cipher: RecordCipher | undefined,
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
      // Every refusal comes before the first write: a wrong key changes no file.
      const decoded = this.decode(bytes);
      for (const { record, size } of decoded.records) this.table.apply(record, size);
      this.counters.recoveredBytes = decoded.droppedBytes;
      if (decoded.damagedRegions > 0) await this.keepDamaged(decoded.damagedRegions, decoded.damagedBytes);
      this.handle = await open(this.path, 'a');
      this.fileBytes = (await this.handle.stat()).size;
      // Cut a torn tail before appending after it; then compact if the disk has room.
      if (decoded.droppedBytes > 0 && decoded.damagedRegions === 0) {
        await this.handle.truncate(this.fileBytes - decoded.droppedBytes);
        this.fileBytes -= decoded.droppedBytes;
      }
      if (this.fileBytes === 0) {
        const header = this.newHeader();
        await writeAll(this.handle, header);
        await this.handle.datasync();
        this.fileBytes = header.length;
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

  /** Reads the journal's records (and the format appends use), or refuses it before any write. */
  private decode(bytes: Uint8Array): Omit<DecodedJournal, 'isJournal'> {
    const kind = journalKind(bytes);
    if (kind === 'encrypted') {
      if (!this.cipher)
        throw keyMismatch(`${this.path} is encrypted: give fileStore the encryptionKey it was written with`);
      const decoded = decodeEncryptedJournal(bytes, this.cipher);
      if (decoded.headerDamaged)
        throw new OutboxStoreError(
          `The header of the encrypted journal ${this.path} is damaged; move it away`,
        );
      if (decoded.unknownKey)
        throw keyMismatch(
          `${this.path} was encrypted under a key not given: give fileStore that encryptionKey (a list during a rotation: the new key first, then the old ones)`,
        );
      if (decoded.journalId)
        this.sealing = { journalId: decoded.journalId, nextFrameNo: decoded.lastFrameNo + 1 };
      return decoded;
    }
    if (kind === 'empty') return { ...NOTHING, droppedBytes: bytes.length };
    // A plain journal opened with a key is read, then rewritten encrypted by the compaction at open.
    const decoded = decodeJournal(bytes);
    if (!decoded.isJournal) throw new OutboxStoreError(`${this.path} is not an outbox journal; move it away`);
    return decoded;
  }

  /** The first bytes of a new journal file: plain, or encrypted under the first key. */
  private newHeader(): Uint8Array {
    if (!this.cipher) {
      this.sealing = undefined;
      return JOURNAL_MAGIC;
    }
    const journalId = newJournalId();
    this.sealing = { journalId, nextFrameNo: 1 };
    return encryptedHeader(journalId, this.cipher.primaryId);
  }

  /** Frames bodies for the journal file now open: each alone, or sealed in chunks if encrypted. */
  private frames(bodies: readonly Uint8Array[]): Uint8Array[] {
    const { sealing, cipher } = this;
    if (!sealing || !cipher) return bodies.map(frameBody);
    return sealedChunks(bodies).map((chunk) =>
      frameBody(cipher.seal(chunk, sealing.journalId, sealing.nextFrameNo++)),
    );
  }

  /** What a record's body counts against `maxBytes` in the journal file open now. */
  private recordBytes(body: Uint8Array): number {
    return recordBytes(body, this.sealing !== undefined);
  }

  /** Keeps the damaged journal aside as found: a hard link (no space needed), else a copy. */
  private async keepDamaged(regions: number, damagedBytes: number): Promise<void> {
    const damagedCopy = `${this.path}.damaged-${Date.now()}`;
    await link(this.path, damagedCopy).catch(() => copyFile(this.path, damagedCopy));
    this.counters.lostRecords += regions;
    callHook(this.hooks.onDamage, { damagedCopy, lostRecords: regions, damagedBytes });
  }

  private async compactOrReport(): Promise<void> {
    try {
      await this.compact();
    } catch (err) {
      this.counters.failedCompactions += 1;
      callHook(this.hooks.onCompactionError, err);
    }
  }

  async append(event: StoredEvent): Promise<void> {
    const record: JournalRecord = { op: 'put', event };
    const body = encodeBody(record);
    const reserved = this.recordBytes(body);
    this.table.reserve(reserved);
    return this.submit(record, body, reserved);
  }

  update(eventId: string, patch: EventPatch): Promise<void> {
    return this.submit({ op: 'patch', id: eventId, patch });
  }

  async remove(eventIds: readonly string[]): Promise<void> {
    await Promise.all(eventIds.map((id) => this.submit({ op: 'del', id })));
  }

  setTenantStop(tenantId: string, stop: StoredTenantStop | null): Promise<void> {
    return this.submit({ op: 'tenant', id: tenantId, stop });
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

  private submit(record: JournalRecord, body = encodeBody(record), reserved = 0): Promise<void> {
    let refusal: Error | undefined;
    if (this.closed) refusal = new OutboxClosedError();
    else if (!this.releaseLock)
      refusal = new OutboxStoreError('The store is not open (outbox.start() opens it)');
    else if (this.broken) refusal = new OutboxStoreError(`Cannot write ${this.path}`, { cause: this.broken });
    if (refusal) {
      if (reserved) this.table.release(reserved);
      return Promise.reject(refusal);
    }
    return this.commits.submit({ record, body, reserved });
  }

  /** One group: one write, one fsync, then the records count. */
  private async write(batch: readonly Submission[]): Promise<void> {
    try {
      if (!this.handle) throw this.broken ?? new Error('journal not open');
      // Framed (sealed, numbered) here, for the journal file open now, before the first await:
      // records submitted meanwhile are numbered after these.
      const frames = this.frames(batch.map((item) => item.body));
      const bytes = frames.length === 1 ? frames[0]! : Buffer.concat(frames);
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
      this.table.apply(item.record, this.recordBytes(item.body));
    }
  }

  private async compactIfWorthIt(): Promise<void> {
    const headerBytes = this.sealing ? ENCRYPTED_HEADER_BYTES : JOURNAL_MAGIC.length;
    const dead = this.fileBytes - headerBytes - this.table.bytes;
    // If compaction fails, the old journal is still whole; the next trigger tries again.
    if (dead > this.options.compactAfterBytes && dead > this.table.bytes) await this.compactOrReport();
  }

  /** Rewrites the live records into a new journal, atomically (with a key: under the first, new id). */
  private async compact(): Promise<void> {
    const records = this.table.liveRecords();
    const bodies = records.map(encodeBody);
    const before = this.sealing;
    const header = this.newHeader();
    const frames = this.frames(bodies);
    await this.handle?.close();
    this.handle = undefined;
    try {
      await replaceFileDurably(this.path, chunked([header, ...frames]));
      for (const [i, record] of records.entries()) this.table.apply(record, this.recordBytes(bodies[i]!));
      this.counters.compactions += 1;
    } catch (err) {
      // The old journal stays: appends go on in its format, under its id.
      this.sealing = before;
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

function keyMismatch(message: string): OutboxStoreError {
  return new OutboxStoreError(message, { code: 'ENCRYPTION_KEY_MISMATCH' });
}
