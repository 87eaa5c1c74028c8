/** One CSV record and the line of the file it starts on (a quoted field may span lines). */
export interface CsvRecord {
  line: number;
  fields: string[];
}

/** The file is not CSV the parser can split into records safely; names the line at fault. */
export class CsvSyntaxError extends Error {
  override readonly name = 'CsvSyntaxError';
  readonly code = 'CSV_SYNTAX' as const;
  readonly line: number;

  constructor(line: number, message: string) {
    super(`line ${line}: ${message}`);
    this.line = line;
  }
}

const FIELD_END = /[,\r\n]/g;

/**
 * Splits RFC 4180 CSV into records: fields separated by commas; a field in double quotes may hold
 * commas, CR, LF and doubled quotes (`""` for one `"`); records end with CRLF, LF or CR. A leading
 * byte-order mark and blank lines are skipped. Values are returned exactly, untrimmed.
 *
 * @throws {CsvSyntaxError} for an unterminated quoted field or text after a closing quote
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const start = line;
    const fields: string[] = [];
    let quoted = false;
    for (;;) {
      let value: string;
      if (text[i] === '"') {
        quoted = true;
        const opened = line;
        const parts: string[] = [];
        let from = ++i;
        for (;;) {
          const quote = text.indexOf('"', i);
          if (quote === -1) throw new CsvSyntaxError(opened, 'a quoted field is never closed');
          line += countBreaks(text, i, quote);
          if (text[quote + 1] === '"') {
            parts.push(text.slice(from, quote + 1));
            i = from = quote + 2;
            continue;
          }
          parts.push(text.slice(from, quote));
          i = quote + 1;
          break;
        }
        value = parts.join('');
        const next = text[i];
        if (next !== undefined && next !== ',' && next !== '\r' && next !== '\n') {
          throw new CsvSyntaxError(
            line,
            'text after a closing quote (quote the whole field, double inner quotes)',
          );
        }
      } else {
        FIELD_END.lastIndex = i;
        const end = FIELD_END.exec(text)?.index ?? text.length;
        value = text.slice(i, end);
        i = end;
      }
      fields.push(value);
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      if (text[i] === '\r') i += text[i + 1] === '\n' ? 2 : 1;
      else if (text[i] === '\n') i += 1;
      line += 1;
      break;
    }
    // A blank line is one empty, unquoted field: no record. `""` alone is a record.
    if (quoted || fields.length > 1 || fields[0] !== '') records.push({ line: start, fields });
  }
  return records;
}

// Line breaks inside a quoted field: CRLF counts once, a lone CR or LF once each.
function countBreaks(text: string, from: number, to: number): number {
  let breaks = 0;
  for (let k = from; k < to; k++) {
    const ch = text.charCodeAt(k);
    if (ch === 10 || (ch === 13 && text.charCodeAt(k + 1) !== 10)) breaks += 1;
  }
  return breaks;
}
