import { LoyaltyValidationError, parsePayload } from '../../contract/index.js';
import { UsageError } from '../exit-codes.js';
import { csvRecords } from './csv.js';
import { linePieces, MAX_ROW_SIZE_DEFAULT, tooLong } from './file-syntax-error.js';
import type { BackfillTarget, FieldKind } from './targets.js';

/** One problem with one row: its line in the file, the field path (`''` for the row) and why. */
export interface RowFailure {
  line: number;
  path: string;
  message: string;
  /** For a row not sent: the eventId `--resume` sends it with, so it is never processed twice. */
  eventId?: string;
}

export interface ValidRow {
  line: number;
  item: Record<string, unknown>;
}

/** A valid row on its way out, under the eventId it keeps through every retry and resume. */
export interface OutgoingRow extends ValidRow {
  eventId: string;
}

/** One row of the file, as it comes: valid (with its item), or its problems. */
export type RowResult = ValidRow | { line: number; failures: RowFailure[] };

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// A cell that does not convert stays text, so the contract's own message names the problem.
function convert(cell: string, kind: FieldKind): unknown {
  const trimmed = cell.trim();
  if (kind === 'number' && DECIMAL.test(trimmed)) return Number(trimmed);
  if (kind === 'boolean' && /^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
  return cell;
}

function judge(target: BackfillTarget, line: number, value: unknown): RowResult {
  try {
    parsePayload(target.singleType, value);
    return { line, item: value as Record<string, unknown> };
  } catch (err) {
    if (!(err instanceof LoyaltyValidationError)) throw err;
    const failures = err.issues.map((issue) => ({
      line,
      path: issue.path.replace(/^payload\.?/, ''),
      message: issue.message,
    }));
    return { line, failures };
  }
}

/**
 * Rows of a JSON Lines stream: one JSON object per non-blank line (LF or CRLF), read a line at a time.
 *
 * @throws {FileSyntaxError} for a line longer than `maxRowSize`, or bytes that are not UTF-8
 */
export async function* jsonLinesRows(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  target: BackfillTarget,
  maxRowSize = MAX_ROW_SIZE_DEFAULT,
): AsyncGenerator<RowResult> {
  let line = 0;
  const row = (raw: string): RowResult | undefined => {
    line += 1;
    if (raw.length > maxRowSize) throw tooLong(line, maxRowSize, 'jsonl');
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return { line, failures: [{ line, path: '', message: 'is not valid JSON' }] };
    }
    return judge(target, line, value);
  };
  for await (const { text } of linePieces(input, 'jsonl', maxRowSize, () => line + 1)) {
    const lines = text.split('\n');
    // A piece ends with a line break, so in '', but for the file's tail.
    if (lines.at(-1) === '') lines.pop();
    for (const raw of lines) {
      const result = row(raw);
      if (result) yield result;
    }
  }
}

/**
 * Rows of a CSV stream whose header names the item's fields. Cells become the field's type (number,
 * boolean); an empty cell is an omitted field, so defaults apply.
 *
 * @throws {UsageError} for a header that is empty, repeats a column or names an unknown field
 */
export async function* csvRows(
  input: AsyncIterable<string | Uint8Array> | Iterable<string | Uint8Array>,
  target: BackfillTarget,
  maxRowSize?: number,
): AsyncGenerator<RowResult> {
  let columns: string[] | undefined;
  for await (const record of csvRecords(input, maxRowSize)) {
    const { line } = record;
    if ('problem' in record) {
      if (columns === undefined) throw new UsageError(`line ${line} (the CSV header): ${record.problem}`);
      yield { line, failures: [{ line, path: '', message: record.problem }] };
      continue;
    }
    const { fields } = record;
    if (columns === undefined) {
      columns = header(fields, target);
      continue;
    }
    if (fields.length !== columns.length) {
      const message = `has ${fields.length} fields where the header has ${columns.length}`;
      yield { line, failures: [{ line, path: '', message }] };
      continue;
    }
    const item: Record<string, unknown> = {};
    for (const [index, column] of columns.entries()) {
      const cell = fields[index] ?? '';
      if (cell !== '') item[column] = convert(cell, target.fields.get(column) ?? 'text');
    }
    yield judge(target, line, item);
  }
}

function header(fields: string[], target: BackfillTarget): string[] {
  const columns = fields.map((name) => name.trim());
  const known = [...target.fields.keys()];
  for (const column of columns) {
    if (!target.fields.has(column)) {
      throw new UsageError(
        `the CSV header's column ${JSON.stringify(column)} is not a field of ${target.singleType} (${known.join(', ')})`,
      );
    }
  }
  const repeated = columns.find((column, index) => columns.indexOf(column) !== index);
  if (repeated !== undefined) throw new UsageError(`the CSV header names ${repeated} twice`);
  return columns;
}
