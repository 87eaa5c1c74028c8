import { randomBytes } from 'node:crypto';
import { crc32 } from './crc32.js';
import type { JournalRecord } from './event-table.js';
import { KEY_ID_BYTES, type RecordCipher, SEALED_OVERHEAD } from './record-cipher.js';

/** First bytes of every journal file: a format name and version, so a foreign file is never replayed. */
export const JOURNAL_MAGIC = new TextEncoder().encode('LPOUTBOX1\n');

/** Bytes a frame adds to its body: length (u32 LE) + CRC-32 of the body (u32 LE), then the body. */
export const FRAME_OVERHEAD = 8;
/** A length field beyond this can only be a torn or damaged header. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;
const OPS: ReadonlySet<string> = new Set(['put', 'patch', 'del', 'tenant']);
/** Every body is a JSON object: a frame can only start 8 bytes before a `{`. */
const OPEN_BRACE = 0x7b;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** The JSON body of one record, before framing (and sealing, in an encrypted journal). */
export function encodeBody(record: JournalRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

export function frameBody(body: Uint8Array): Uint8Array {
  const frame = Buffer.alloc(FRAME_OVERHEAD + body.length);
  frame.writeUInt32LE(body.length, 0);
  frame.writeUInt32LE(crc32(body), 4);
  frame.set(body, FRAME_OVERHEAD);
  return frame;
}

/**
 * An encrypted journal seals the records of one write together, one cipher per chunk of at most
 * this many plain bytes (about a disk sector): damage that fails a chunk's authentication costs
 * about what a damaged sector would.
 */
export const SEALED_CHUNK_BYTES = 4096;
/** A chunk's first byte; then each record, as its length (u32 LE) and its body. */
const CHUNK_FORMAT = 0x01;

/** The bodies cut into chunks to seal, of at most `SEALED_CHUNK_BYTES` (a larger body alone). */
export function sealedChunks(bodies: readonly Uint8Array[]): Buffer[] {
  const chunks: Uint8Array[][] = [];
  let bytes = SEALED_CHUNK_BYTES;
  for (const body of bodies) {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length, 0);
    bytes += length.length + body.length;
    if (bytes > SEALED_CHUNK_BYTES) {
      chunks.push([Buffer.of(CHUNK_FORMAT)]);
      bytes = 1 + length.length + body.length;
    }
    chunks.at(-1)!.push(length, body);
  }
  return chunks.map((parts) => Buffer.concat(parts));
}

/** What a record counts against `maxBytes`: framed, and `sealed` as if alone whatever its chunk. */
export const recordBytes = (body: Uint8Array, sealed: boolean) =>
  body.length + FRAME_OVERHEAD + (sealed ? SEALED_OVERHEAD : 0);

/** The records of an opened chunk; a body sealed alone, before chunks, is one JSON record. */
function chunkRecords(plain: Uint8Array): { record: JournalRecord; size: number }[] | undefined {
  const data = asBuffer(plain);
  const bodies = data[0] === OPEN_BRACE ? [data] : [];
  for (let at = 1, end = 0; data[0] === CHUNK_FORMAT && at < data.length; at = end) {
    end = at + 4 <= data.length ? at + 4 + data.readUInt32LE(at) : Number.POSITIVE_INFINITY;
    if (end > data.length) return undefined;
    bodies.push(data.subarray(at + 4, end));
  }
  const records = bodies.map((body) => ({ record: parseRecord(body), size: recordBytes(body, true) }));
  const parsed = (entry: (typeof records)[number]): entry is { record: JournalRecord; size: number } =>
    entry.record !== undefined;
  return records.length > 0 && records.every(parsed) ? records : undefined;
}

/** First bytes of an encrypted journal; then its random id (16 bytes), a key id, a CRC-32 of them. */
export const ENCRYPTED_MAGIC = new TextEncoder().encode('LPOUTBOXE\n');
const JOURNAL_ID_BYTES = 16;
export const ENCRYPTED_HEADER_BYTES = ENCRYPTED_MAGIC.length + JOURNAL_ID_BYTES + KEY_ID_BYTES + 4;
const HEADER_CRC_AT = ENCRYPTED_HEADER_BYTES - 4;

/** The header of an encrypted journal: its id (authenticated with every record) and its key's id. */
export function encryptedHeader(journalId: Uint8Array, keyId: Uint8Array): Uint8Array {
  const header = Buffer.concat([ENCRYPTED_MAGIC, journalId, keyId, Buffer.alloc(4)]);
  header.writeUInt32LE(crc32(header.subarray(0, HEADER_CRC_AT)), HEADER_CRC_AT);
  return header;
}

/** A new journal id: a record sealed for one journal file never opens in another. */
export function newJournalId(): Uint8Array {
  return new Uint8Array(randomBytes(JOURNAL_ID_BYTES));
}

/** Which kind of journal the bytes start (`decodeJournal` tells a plain one from a foreign file). */
export function journalKind(bytes: Uint8Array): 'empty' | 'plain' | 'encrypted' {
  if (bytes.length === 0) return 'empty';
  if (startsWith(bytes, ENCRYPTED_MAGIC)) return 'encrypted';
  // A torn first write of an encrypted journal's magic: nothing was stored in it yet.
  if (bytes.length < ENCRYPTED_MAGIC.length && startsWith(ENCRYPTED_MAGIC, bytes)) return 'empty';
  return 'plain';
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && prefix.every((byte, i) => bytes[i] === byte);
}

/** What an encrypted journal's bytes hold. */
export interface DecodedEncryptedJournal extends Omit<DecodedJournal, 'isJournal'> {
  /** `undefined`: the header is torn (nothing was stored yet) or damaged (`headerDamaged`). */
  readonly journalId: Uint8Array | undefined;
  readonly headerDamaged: boolean;
  /** The header, or an intact record, names a key that was not given. */
  readonly unknownKey: boolean;
  /** Number of the last frame read; the next one appended must be higher. */
  readonly lastFrameNo: number;
}

/** Reads an encrypted journal as `decodeJournal` does; a frame failing authentication is damage. */
export function decodeEncryptedJournal(bytes: Uint8Array, cipher: RecordCipher): DecodedEncryptedJournal {
  const data = asBuffer(bytes);
  const torn = data.length < ENCRYPTED_HEADER_BYTES;
  if (torn || crc32(data.subarray(0, HEADER_CRC_AT)) !== data.readUInt32LE(HEADER_CRC_AT)) {
    const none = { journalId: undefined, unknownKey: false, lastFrameNo: 0 };
    return { ...NOTHING, ...none, droppedBytes: torn ? data.length : 0, headerDamaged: !torn };
  }
  const journalId = data.slice(ENCRYPTED_MAGIC.length, ENCRYPTED_MAGIC.length + JOURNAL_ID_BYTES);
  const headerKeyId = data.slice(ENCRYPTED_MAGIC.length + JOURNAL_ID_BYTES, HEADER_CRC_AT);
  let last = 0;
  const format: BodyFormat = {
    open: (body) => {
      const opened = cipher.open(body, journalId);
      if (opened.kind !== 'record') return opened.kind;
      if (opened.frameNo <= last) return 'rejected';
      const records = chunkRecords(opened.body);
      return records ? { records, frameNo: opened.frameNo } : 'rejected';
    },
    skipsRejected: true,
    nextStart: (data, from) => {
      for (let at = from; at + KEY_ID_BYTES <= data.length; at++) {
        if (cipher.startsWithKnownId(data, at)) return at;
      }
      return -1;
    },
  };
  const decoded = decodeFrames(data, ENCRYPTED_HEADER_BYTES, format, (frameNo) => {
    last = frameNo;
  });
  const unknownKey = !cipher.knows(headerKeyId) || decoded.unknownKeyRecords > 0;
  return { ...decoded, journalId, headerDamaged: false, unknownKey, lastFrameNo: last };
}

/** The records a frame holds, each with what it counts against `maxBytes`, and the frame's number. */
type Opening =
  | { readonly records: readonly { record: JournalRecord; size: number }[]; readonly frameNo: number }
  | 'rejected'
  | 'unknown-key';

/** How the bodies of one kind of journal are opened, and where the next one may start. */
interface BodyFormat {
  open(body: Uint8Array): Opening;
  /** An intact frame whose body is refused is skipped whole (counted as damage). */
  readonly skipsRejected: boolean;
  /** The next offset at or after `from` where a body may start; -1: none. */
  nextStart(bytes: Uint8Array, from: number): number;
}

const PLAIN: BodyFormat = {
  open: (body) => {
    const record = parseRecord(body);
    return record ? { records: [{ record, size: recordBytes(body, false) }], frameNo: 0 } : 'rejected';
  },
  skipsRejected: false,
  nextStart: (bytes, from) => bytes.indexOf(OPEN_BRACE, from),
};

function decodeFrames(
  bytes: Buffer,
  start: number,
  format: BodyFormat,
  accepted: (frameNo: number) => void = () => undefined,
): Omit<DecodedJournal, 'isJournal'> & { unknownKeyRecords: number } {
  const records: { record: JournalRecord; size: number }[] = [];
  let damagedRegions = 0;
  let damagedBytes = 0;
  let unknownKeyRecords = 0;
  let offset = start;
  while (offset < bytes.length) {
    const frame = frameAt(bytes, offset, format);
    if (!frame) {
      const next = nextFrame(bytes, offset + 1, format);
      if (next === undefined) break;
      damagedRegions += 1;
      damagedBytes += next - offset;
      offset = next;
      continue;
    }
    const { opened, size } = frame;
    if (typeof opened === 'object') {
      records.push(...opened.records);
      accepted(opened.frameNo);
    } else if (opened === 'unknown-key') unknownKeyRecords += 1;
    else {
      damagedRegions += 1;
      damagedBytes += size;
    }
    offset += size;
  }
  return { records, droppedBytes: bytes.length - offset, damagedRegions, damagedBytes, unknownKeyRecords };
}

export const NOTHING = { records: [], droppedBytes: 0, damagedRegions: 0, damagedBytes: 0 } as const;

/** What a journal's bytes hold. */
export interface DecodedJournal {
  readonly records: readonly { readonly record: JournalRecord; readonly size: number }[];
  /** Bytes after the last complete, intact record (a torn write), dropped by the reader. */
  readonly droppedBytes: number;
  /** Damaged stretches before the end (a flipped bit, a zeroed sector), each costing its records. */
  readonly damagedRegions: number;
  /** Bytes of those stretches. */
  readonly damagedBytes: number;
  /** `false` when the bytes do not look like a journal at all (and are not a torn start of one). */
  readonly isJournal: boolean;
}

/** Every intact record, resynchronising after damage; bad bytes at the end are a torn write. */
export function decodeJournal(bytes: Uint8Array): DecodedJournal {
  if (bytes.length < JOURNAL_MAGIC.length) {
    return { ...NOTHING, droppedBytes: bytes.length, isJournal: startsWith(JOURNAL_MAGIC, bytes) };
  }
  const magicIntact = startsWith(bytes, JOURNAL_MAGIC);
  const decoded = decodeFrames(asBuffer(bytes), JOURNAL_MAGIC.length, PLAIN);
  // A damaged header on a file with no intact record: not ours (or nothing worth saving).
  if (!magicIntact && decoded.records.length === 0) return { ...NOTHING, isJournal: false };
  return { ...decoded, damagedRegions: decoded.damagedRegions + (magicIntact ? 0 : 1), isJournal: true };
}

function frameAt(
  bytes: Buffer,
  offset: number,
  format: BodyFormat,
): { readonly opened: Opening; readonly size: number } | undefined {
  if (offset + FRAME_OVERHEAD > bytes.length) return undefined;
  const length = bytes.readUInt32LE(offset);
  const end = offset + FRAME_OVERHEAD + length;
  if (length === 0 || length > MAX_RECORD_BYTES || end > bytes.length) return undefined;
  const body = bytes.subarray(offset + FRAME_OVERHEAD, end);
  if (crc32(body) !== bytes.readUInt32LE(offset + 4)) return undefined;
  const opened = format.open(body);
  if (opened === 'rejected' && !format.skipsRejected) return undefined;
  return { opened, size: end - offset };
}

/** The next offset from `from` where an intact frame starts (a plain body starts with `{"op":`). */
function nextFrame(bytes: Buffer, from: number, format: BodyFormat): number | undefined {
  for (
    let at = format.nextStart(bytes, from + FRAME_OVERHEAD);
    at !== -1;
    at = format.nextStart(bytes, at + 1)
  ) {
    const start = at - FRAME_OVERHEAD;
    if (start >= from && frameAt(bytes, start, format)) return start;
  }
  return undefined;
}

/** The same bytes, read as a Buffer (no copy). */
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function parseRecord(body: Uint8Array): JournalRecord | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(body));
    const op = (value as { op?: unknown } | null)?.op;
    return typeof op === 'string' && OPS.has(op) ? (value as JournalRecord) : undefined;
  } catch {
    return undefined;
  }
}
