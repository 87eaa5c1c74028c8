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
export const notUtf8 = (line: number) =>
  new FileSyntaxError(line, 'bytes that are not UTF-8: save the file as UTF-8');

/** The next text of a UTF-8 stream (no `chunk`: its end); at a bad byte, the text before it and `badByte`. */
export function decodeChunk(
  decoder: TextDecoder,
  chunk?: string | Uint8Array,
): { text: string; badByte: boolean } {
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
