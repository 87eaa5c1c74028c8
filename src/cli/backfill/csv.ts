import { CsvError, parse } from 'csv-parse';
import { FileSyntaxError, linePieces, MAX_ROW_SIZE_DEFAULT, tooLong } from './file-syntax-error.js';

/** One CSV record and the line of the file it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** A record the parser skipped, with why: the caller reports that row and reads on. */
export interface CsvBadRecord {
  line: number;
  problem: string;
}

// Line breaks in a text: CRLF counts once, a lone CR or LF once each.
function breaksIn(text: string): number {
  let breaks = 0;
  for (let k = 0; k < text.length; k++) {
    const ch = text.charCodeAt(k);
    if (ch === 10 || (ch === 13 && text.charCodeAt(k + 1) !== 10)) breaks += 1;
  }
  return breaks;
}

const MESSAGES: Record<string, string> = {
  CSV_QUOTE_NOT_CLOSED: 'a quoted field is never closed',
  CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote (quote the whole field, double inner quotes)',
};

// A quote inside a field that does not start with one (`12" pizza`): that row is reported and the
// parser reads on from the next line. Any other error leaves it unsure where records start.
const STRAY_QUOTE = 'INVALID_OPENING_QUOTE';
const STRAY_QUOTE_MESSAGE =
  'a double quote inside a field that is not quoted: quote the whole field and double the quote ("12"" pizza")';

/**
 * Streams RFC 4180 CSV records (CRLF, LF or CR) with `csv-parse`, one at a time, whatever the file's
 * size. A byte-order mark and blank lines are skipped, values untrimmed, lengths unchecked; a stray
 * quote in an unquoted field is a `CsvBadRecord`, and reading goes on.
 *
 * @throws {FileSyntaxError} for an unterminated quoted field, text after a closing quote, a row
 * longer than `maxRowSize` characters, or bytes that are not UTF-8
 */
export async function* csvRecords(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  maxRowSize = MAX_ROW_SIZE_DEFAULT,
): AsyncGenerator<CsvRecord | CsvBadRecord> {
  const parser = parse({
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    info: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_records_with_error: true,
    max_record_size: maxRowSize,
  });
  // Written by hand and read through 'data': every record parsed before a syntax error is given
  // out first, so the error names the line of the record it broke, and memory holds one chunk.
  type Parsed =
    | { record: string[]; info: { empty_lines: number } }
    | { skipped: CsvError & { lines?: number; empty_lines?: number } };
  const parsed: Parsed[] = [];
  let failure: unknown;
  parser.on('data', (entry) => {
    if (failure === undefined) parsed.push(entry);
  });
  parser.on('skip', (err: CsvError) => {
    if (failure !== undefined) return;
    if (err.code === STRAY_QUOTE) parsed.push({ skipped: err });
    else failure = err;
  });
  parser.on('error', (err) => {
    failure ??= err;
  });
  let next = 1;
  let emptySeen = 0;
  function* take(): Generator<CsvRecord | CsvBadRecord> {
    for (const entry of parsed.splice(0)) {
      if ('skipped' in entry) {
        const line = entry.skipped.lines ?? next;
        yield { line, problem: STRAY_QUOTE_MESSAGE };
        next = line + 1;
        emptySeen = entry.skipped.empty_lines ?? emptySeen;
        continue;
      }
      const { record, info } = entry;
      next += info.empty_lines - emptySeen;
      emptySeen = info.empty_lines;
      yield { line: next, fields: record };
      next += record.reduce((sum, field) => sum + breaksIn(field), 1);
    }
    if (failure !== undefined) throw syntaxError(failure, next, maxRowSize);
  }
  // Ends the parser, so it gives out the record it holds back until it sees what follows.
  const finish = async () => {
    if (failure !== undefined || parser.destroyed) return;
    await new Promise<void>((resolve) => {
      parser.once('end', resolve);
      parser.once('error', () => resolve());
      parser.once('close', resolve);
      parser.end();
    });
  };
  // Cut after a line break by linePieces: csv-parse 7 turns a non-ASCII character near a chunk's end
  // into U+FFFD (test/cli/backfill/csv.test.ts); bytes that are not UTF-8 stop the reading at their line.
  let breaksWritten = 0;
  for await (const { text, last } of linePieces(input, 'csv', maxRowSize, () => breaksWritten + 1)) {
    if (text) {
      breaksWritten += breaksIn(text);
      parser.write(text);
    }
    // Before a bad byte too: the whole lines before it are read and their rows handled.
    if (last) await finish();
    yield* take();
  }
}

function syntaxError(err: unknown, next: number, maxRowSize: number): unknown {
  if (!(err instanceof CsvError)) return err;
  if (err.code === 'CSV_MAX_RECORD_SIZE') return tooLong(next, maxRowSize);
  // An unclosed quote is reported where it opened: the record being read.
  const at = (err as { lines?: unknown }).lines;
  const line = err.code === 'CSV_QUOTE_NOT_CLOSED' || typeof at !== 'number' ? next : at;
  return new FileSyntaxError(line, MESSAGES[err.code] ?? err.message);
}
