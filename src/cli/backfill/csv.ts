import { StringDecoder } from 'node:string_decoder';
import { CsvError, parse } from 'csv-parse';

/** One CSV record and the line of the file it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The file is not CSV the parser can split into records safely; names the line at fault. */
export class CsvSyntaxError extends Error {
  // A literal, not `constructor.name`: minifiers rename classes.
  override get name(): 'CsvSyntaxError' {
    return 'CsvSyntaxError';
  }
  readonly code = 'CSV_SYNTAX' as const;
  readonly line: number;

  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

// Line breaks inside a record's fields: CRLF counts once, a lone CR or LF once each.
function countBreaks(fields: readonly string[]): number {
  let breaks = 0;
  for (const field of fields) {
    for (let k = 0; k < field.length; k++) {
      const ch = field.charCodeAt(k);
      if (ch === 10 || (ch === 13 && field.charCodeAt(k + 1) !== 10)) breaks += 1;
    }
  }
  return breaks;
}

const MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote (quote the whole field, double inner quotes)',
};

/**
 * Streams RFC 4180 CSV records with `csv-parse`, one at a time, so a file of any size costs the
 * memory of one record: fields separated by commas; a field in double quotes may hold commas,
 * CR, LF and doubled quotes; records end with CRLF, LF or CR. A leading byte-order mark and blank
 * lines are skipped. Values are returned exactly, untrimmed; records may differ in length (the
 * caller reports that per row).
 *
 * @throws {CsvSyntaxError} for an unterminated quoted field or text after a closing quote
 */
export async function* csvRecords(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
): AsyncGenerator<CsvRecord> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    record_delimiter: ['\r\n', '\n', '\r'],
  });
  // Written by hand and read through 'data': every record parsed before a syntax error is given
  // out first, so the error names the line of the record it broke, and memory holds one chunk.
  const parsed: { record: string[]; info: { empty_lines: number } }[] = [];
  let failure: unknown;
  parser.on('data', (entry) => parsed.push(entry));
  parser.on('error', (err) => {
    failure = err;
  });
  let next = 1;
  let emptySeen = 0;
  function* take(): Generator<CsvRecord> {
    for (const { record, info } of parsed.splice(0)) {
      next += info.empty_lines - emptySeen;
      emptySeen = info.empty_lines;
      yield { line: next, fields: record };
      next += countBreaks(record) + 1;
    }
    if (failure !== undefined) throw syntaxError(failure, next);
  }
  // Decoded here, and cut after a line break only: csv-parse 7 turns a non-ASCII character near
  // a chunk's end into U+FFFD (the property test in test/cli/backfill/csv.test.ts finds it).
  const decoder = new StringDecoder('utf8');
  let held = '';
  for await (const chunk of input) {
    held += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    const cut = Math.max(held.lastIndexOf('\n'), held.lastIndexOf('\r')) + 1;
    if (cut > 0) {
      parser.write(held.slice(0, cut));
      held = held.slice(cut);
    }
    yield* take();
  }
  held += decoder.end();
  if (held) parser.write(held);
  await new Promise<void>((resolve) => {
    parser.once('end', resolve);
    parser.once('error', () => resolve());
    parser.end();
  });
  yield* take();
}

function syntaxError(err: unknown, next: number): unknown {
  if (!(err instanceof CsvError)) return err;
  // An unclosed quote is reported where it opened: the record being read.
  const at = (err as { lines?: unknown }).lines;
  const line = err.code === 'CSV_QUOTE_NOT_CLOSED' || typeof at !== 'number' ? next : at;
  return new CsvSyntaxError(line, MESSAGES[err.code] ?? err.message);
}
