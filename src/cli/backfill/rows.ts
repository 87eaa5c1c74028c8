import { LoyaltyValidationError, parsePayload } from '../../contract/index.js';
import { UsageError } from '../exit-codes.js';
import { parseCsv } from './csv.js';
import type { BackfillTarget, FieldKind } from './targets.js';

/** One problem with one row: its line in the file, the field path (`''` for the row) and why. */
export interface RowFailure {
  line: number;
  path: string;
  message: string;
}

/** A row the contract accepts, with the line it came from. */
export interface ValidRow {
  line: number;
  item: Record<string, unknown>;
}

/** Every row of a file, sorted into the valid and the failed. */
export interface ReadRows {
  read: number;
  valid: ValidRow[];
  failures: RowFailure[];
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// A cell that does not convert stays text, so the contract's own message names the problem.
function convert(cell: string, kind: FieldKind): unknown {
  const trimmed = cell.trim();
  if (kind === 'number' && DECIMAL.test(trimmed)) return Number(trimmed);
  if (kind === 'boolean' && /^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === 'true';
  return cell;
}

function judge(target: BackfillTarget, line: number, value: unknown, rows: ReadRows): void {
  rows.read += 1;
  try {
    parsePayload(target.singleType, value);
    rows.valid.push({ line, item: value as Record<string, unknown> });
  } catch (err) {
    if (!(err instanceof LoyaltyValidationError)) throw err;
    for (const issue of err.issues) {
      rows.failures.push({ line, path: issue.path.replace(/^payload\.?/, ''), message: issue.message });
    }
  }
}

/** Rows of a JSON Lines file: one JSON object per non-blank line. */
export function readJsonLines(text: string, target: BackfillTarget): ReadRows {
  const rows: ReadRows = { read: 0, valid: [], failures: [] };
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      rows.read += 1;
      rows.failures.push({ line: index + 1, path: '', message: 'is not valid JSON' });
      continue;
    }
    judge(target, index + 1, value, rows);
  }
  return rows;
}

/**
 * Rows of a CSV file whose header names the item's fields. Cells become the contract's types
 * (`price` and `discountValue` numbers, `isActive` and `isLoyaltyProgramCoupon` booleans), and an
 * empty cell is an omitted field, so optional fields stay out and defaults apply.
 *
 * @throws {UsageError} for a header that is empty, repeats a column or names an unknown field
 */
export function readCsv(text: string, target: BackfillTarget): ReadRows {
  const [header, ...records] = parseCsv(text);
  const rows: ReadRows = { read: 0, valid: [], failures: [] };
  if (!header) return rows;
  const columns = header.fields.map((name) => name.trim());
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
  for (const { line, fields } of records) {
    if (fields.length !== columns.length) {
      rows.read += 1;
      const message = `has ${fields.length} fields where the header has ${columns.length}`;
      rows.failures.push({ line, path: '', message });
      continue;
    }
    const item: Record<string, unknown> = {};
    for (const [index, column] of columns.entries()) {
      const cell = fields[index] ?? '';
      if (cell !== '') item[column] = convert(cell, target.fields.get(column) ?? 'text');
    }
    judge(target, line, item, rows);
  }
  return rows;
}
