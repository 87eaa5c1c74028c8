import { crc32 } from './crc32.js';
import type { JournalRecord } from './event-table.js';

/** First bytes of every journal file: a format name and version, so a foreign file is never replayed. */
export const JOURNAL_MAGIC = new TextEncoder().encode('LPOUTBOX1\n');

/** Length (u32 LE) + CRC-32 of the body (u32 LE), then the body (UTF-8 JSON). */
const FRAME_HEADER = 8;
/** A length field beyond this can only be a torn or damaged header. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;
const OPS: ReadonlySet<string> = new Set(['put', 'patch', 'del', 'tenant']);

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/** Frames one record: length, checksum, body. */
export function encodeRecord(record: JournalRecord): Uint8Array {
  const body = encoder.encode(JSON.stringify(record));
  const frame = new Uint8Array(FRAME_HEADER + body.length);
  const view = new DataView(frame.buffer);
  view.setUint32(0, body.length, true);
  view.setUint32(4, crc32(body), true);
  frame.set(body, FRAME_HEADER);
  return frame;
}

/** What a journal's bytes hold. */
export interface DecodedJournal {
  readonly records: readonly { readonly record: JournalRecord; readonly size: number }[];
  /** Bytes after the last complete, intact record (a torn write), dropped by the reader. */
  readonly droppedBytes: number;
  /** `false` when the bytes do not start like a journal at all (and are not a torn start of one). */
  readonly isJournal: boolean;
}

/**
 * Reads every complete, intact record and stops at the first frame that is short, fails its
 * checksum or is not a record: with append-only writes only the last one can be torn, so what
 * follows a bad frame is never trusted. Never throws on any input.
 */
export function decodeJournal(bytes: Uint8Array): DecodedJournal {
  if (bytes.length < JOURNAL_MAGIC.length) {
    const tornStart = JOURNAL_MAGIC.subarray(0, bytes.length).every((byte, i) => byte === bytes[i]);
    return { records: [], droppedBytes: bytes.length, isJournal: tornStart };
  }
  if (!JOURNAL_MAGIC.every((byte, i) => byte === bytes[i])) {
    return { records: [], droppedBytes: 0, isJournal: false };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: { record: JournalRecord; size: number }[] = [];
  let offset = JOURNAL_MAGIC.length;
  while (offset + FRAME_HEADER <= bytes.length) {
    const length = view.getUint32(offset, true);
    const end = offset + FRAME_HEADER + length;
    if (length > MAX_RECORD_BYTES || end > bytes.length) break;
    if (crc32(bytes, offset + FRAME_HEADER, end) !== view.getUint32(offset + 4, true)) break;
    const record = parseRecord(bytes.subarray(offset + FRAME_HEADER, end));
    if (!record) break;
    records.push({ record, size: end - offset });
    offset = end;
  }
  return { records, droppedBytes: bytes.length - offset, isJournal: true };
}

function parseRecord(body: Uint8Array): JournalRecord | undefined {
  try {
    const value: unknown = JSON.parse(decoder.decode(body));
    const op = (value as { op?: unknown } | null)?.op;
    return typeof op === 'string' && OPS.has(op) ? (value as JournalRecord) : undefined;
  } catch {
    return undefined;
  }
}
