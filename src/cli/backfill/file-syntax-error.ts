import { codedError } from '../../contract/errors.js';

/** The longest row `backfill` reads by default (`--max-row-size`): 1,048,576 characters. */
export const MAX_ROW_SIZE_DEFAULT = 1_048_576;

/** A backfill file that cannot be read on from `line`: the rows before it were read. */
export class FileSyntaxError extends codedError('FileSyntaxError') {
  readonly code = 'FILE_SYNTAX' as const;
  readonly line: number;

  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

/** Bytes that are not UTF-8 at `line`: the reading stops there. */
const notUtf8 = (line: number) =>
  new FileSyntaxError(line, 'bytes that are not UTF-8: save the file as UTF-8');

/** The next text of a UTF-8 stream (no `chunk`: its end); at a bad byte, the text before it and `badByte`. */
function decodeChunk(decoder: TextDecoder, chunk?: string | Uint8Array): { text: string; badByte: boolean } {
  if (typeof chunk === 'string') return { text: chunk, badByte: false };
  try {
    return { text: chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode(), badByte: false };
  } catch {
    const lenient = chunk ? new TextDecoder('utf-8').decode(chunk) : '';
    return { text: lenient.slice(0, Math.max(0, lenient.indexOf('\ufffd'))), badByte: true };
  }
}

/** A row (CSV) or line (JSON Lines) past `--max-row-size`: in CSV, likely a quote never closed. */
export const tooLong = (line: number, maxRowSize: number, format: 'csv' | 'jsonl' = 'csv') =>
  new FileSyntaxError(
    line,
    format === 'csv'
      ? `a row longer than ${maxRowSize.toLocaleString('en-US')} characters (an unclosed quote?): pass --max-row-size to allow longer rows`
      : `a line longer than ${maxRowSize.toLocaleString('en-US')} characters: pass --max-row-size to allow longer lines`,
  );

/** What `backfill` reads a file from: its chunks, bytes or text. */
export type TextSource = AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>;

/**
 * The text of a UTF-8 stream in pieces that end after a line break (`cutAt`: where the last break
 * of a text ends, 0 without one), so no character or row straddles two. `last`: the tail of the
 * stream, or the whole lines before bytes that are not UTF-8, which then stop the reading at
 * `nextLine()`, as a tail longer than `maxRowSize` does.
 */
export async function* linePieces(
  input: TextSource,
  decoder: TextDecoder,
  cutAt: (text: string) => number,
  bounds: { maxRowSize: number; format: 'csv' | 'jsonl'; nextLine: () => number },
): AsyncGenerator<{ text: string; last: boolean }> {
  let held = '';
  for await (const chunk of input) {
    const decoded = decodeChunk(decoder, chunk);
    held += decoded.text;
    const cut = cutAt(held);
    yield { text: held.slice(0, cut), last: decoded.badByte };
    held = held.slice(cut);
    if (decoded.badByte) throw notUtf8(bounds.nextLine());
    // A line this long is a row this long: stop before holding more of it.
    if (held.length > bounds.maxRowSize) throw tooLong(bounds.nextLine(), bounds.maxRowSize, bounds.format);
  }
  const end = decodeChunk(decoder);
  yield { text: end.badByte ? '' : held + end.text, last: true };
  if (end.badByte) throw notUtf8(bounds.nextLine());
}
