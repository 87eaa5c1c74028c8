import { crc32 } from './crc32.js';
import type { JournalRecord } from './event-table.js';

/** First bytes of every journal file: a format name and version, so a foreign file is never replayed. */
export const JOURNAL_MAGIC = new TextEncoder().encode('LPOUTBOX1\n');

/** Length (u32 LE) + CRC-32 of the body (u32 LE), then the body (UTF-8 JSON). */
const FRAME_HEADER = 8;
/** A length field beyond this can only be a torn or damaged header. */
const MAX_RECORD_BYTES = 256 * 1024 * 1024;
const OPS: ReadonlySet<string> = new Set(['put', 'patch', 'del', 'tenant']);
/** Every body is a JSON object: a frame can only start 8 bytes before a `{`. */
const OPEN_BRACE = 0x7b;

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
  /**
   * Damaged stretches before the end (a flipped bit, a zeroed sector): each lost at least the
   * record it fell in; the reader resynchronised on the next intact record after it.
   */
  readonly damagedRegions: number;
  /** Bytes of those stretches. */
  readonly damagedBytes: number;
  /** `false` when the bytes do not look like a journal at all (and are not a torn start of one). */
  readonly isJournal: boolean;
}

/**
 * Reads every intact record. At a frame that is short, fails its checksum or is not a record,
 * it looks for the next offset where an intact record starts and goes on from there: damage in
 * the middle costs the records it touched, never the ones after it. Bad bytes with no intact
 * record after them are a torn last write (`droppedBytes`), the normal trace of a crash.
 * Never throws on any input.
 */
export function decodeJournal(bytes: Uint8Array): DecodedJournal {
  if (bytes.length < JOURNAL_MAGIC.length) {
    const tornStart = JOURNAL_MAGIC.subarray(0, bytes.length).every((byte, i) => byte === bytes[i]);
    return {
      records: [],
      droppedBytes: bytes.length,
      damagedRegions: 0,
      damagedBytes: 0,
      isJournal: tornStart,
    };
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const records: { record: JournalRecord; size: number }[] = [];
  const magicIntact = JOURNAL_MAGIC.every((byte, i) => byte === bytes[i]);
  let damagedRegions = magicIntact ? 0 : 1;
  let damagedBytes = 0;
  let offset = JOURNAL_MAGIC.length;
  while (offset < bytes.length) {
    const record = frameAt(bytes, view, offset);
    if (record) {
      records.push(record);
      offset += record.size;
      continue;
    }
    const next = nextFrame(bytes, view, offset + 1);
    if (next === undefined) break;
    damagedRegions += 1;
    damagedBytes += next - offset;
    offset = next;
  }
  // A damaged header on a file with no intact record: not ours (or nothing worth saving).
  if (!magicIntact && records.length === 0) {
    return { records: [], droppedBytes: 0, damagedRegions: 0, damagedBytes: 0, isJournal: false };
  }
  return { records, droppedBytes: bytes.length - offset, damagedRegions, damagedBytes, isJournal: true };
}

function frameAt(
  bytes: Uint8Array,
  view: DataView,
  offset: number,
): { record: JournalRecord; size: number } | undefined {
  if (offset + FRAME_HEADER > bytes.length) return undefined;
  const length = view.getUint32(offset, true);
  const end = offset + FRAME_HEADER + length;
  if (length === 0 || length > MAX_RECORD_BYTES || end > bytes.length) return undefined;
  if (crc32(bytes.subarray(offset + FRAME_HEADER, end)) !== view.getUint32(offset + 4, true))
    return undefined;
  const record = parseRecord(bytes.subarray(offset + FRAME_HEADER, end));
  return record ? { record, size: end - offset } : undefined;
}

/** The next offset from `from` where an intact record starts (bodies start with `{"op":`). */
function nextFrame(bytes: Uint8Array, view: DataView, from: number): number | undefined {
  for (
    let at = bytes.indexOf(OPEN_BRACE, from + FRAME_HEADER);
    at !== -1;
    at = bytes.indexOf(OPEN_BRACE, at + 1)
  ) {
    const start = at - FRAME_HEADER;
    if (start >= from && frameAt(bytes, view, start)) return start;
  }
  return undefined;
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
