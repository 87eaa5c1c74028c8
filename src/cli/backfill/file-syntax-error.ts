/** The longest row `backfill` reads by default (`--max-row-size`): 1,048,576 characters. */
export const MAX_ROW_SIZE_DEFAULT = 1_048_576;

/**
 * A backfill file that cannot be read on from `line` (CSV or JSON Lines): the rows before it
 * were read; nothing after it is.
 */
export class FileSyntaxError extends Error {
  // A literal, not `constructor.name`: minifiers rename classes.
  override get name(): 'FileSyntaxError' {
    return 'FileSyntaxError';
  }
  readonly code = 'FILE_SYNTAX' as const;
  readonly line: number;

  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

export const NOT_UTF8 = 'bytes that are not UTF-8: save the file as UTF-8';

/**
 * A row (CSV) or line (JSON Lines) past `--max-row-size`: reading stops before holding more of
 * it. In a CSV file the likely cause is a quote never closed.
 */
export const tooLong = (line: number, maxRowSize: number, format: 'csv' | 'jsonl' = 'csv') =>
  new FileSyntaxError(
    line,
    format === 'csv'
      ? `a row longer than ${maxRowSize.toLocaleString('en-US')} characters (an unclosed quote?): pass --max-row-size to allow longer rows`
      : `a line longer than ${maxRowSize.toLocaleString('en-US')} characters: pass --max-row-size to allow longer lines`,
  );
