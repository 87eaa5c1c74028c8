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

/**
 * A UTF-8 file's text in pieces cut after a line break (CSV: CR or LF; JSON Lines: LF), so no
 * character or row straddles two. `last`: the tail, or the lines before bytes that are not UTF-8,
 * which then stop the reading at `nextLine()`, as a tail longer than `maxRowSize` does.
 */
export async function* linePieces(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  format: 'csv' | 'jsonl',
  maxRowSize: number,
  nextLine: () => number,
): AsyncGenerator<{ text: string; last: boolean }> {
  // A CSV keeps its byte-order mark for csv-parse, which strips it from text given as strings too.
  const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: format === 'csv' });
  let held = '';
  for await (const chunk of input) {
    const { text, badByte } = decodeChunk(decoder, chunk);
    held += text;
    const cut = Math.max(held.lastIndexOf('\n'), format === 'csv' ? held.lastIndexOf('\r') : -1) + 1;
    yield { text: held.slice(0, cut), last: badByte };
    held = held.slice(cut);
    if (badByte) throw notUtf8(nextLine());
    if (held.length > maxRowSize) throw tooLong(nextLine(), maxRowSize, format);
  }
  const end = decodeChunk(decoder);
  yield { text: end.badByte ? '' : held + end.text, last: true };
  if (end.badByte) throw notUtf8(nextLine());
}
