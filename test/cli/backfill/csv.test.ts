import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CsvBadRecord, type CsvRecord, csvRecords } from '../../../src/cli/backfill/csv.js';
import { FileSyntaxError } from '../../../src/cli/backfill/file-syntax-error.js';

/** Every record of `text`, streamed in chunks of `size` characters as a file would arrive. */
async function parseCsv(text: string, size = 7): Promise<(CsvRecord | CsvBadRecord)[]> {
  const chunks = Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, i * size + size),
  );
  const records: (CsvRecord | CsvBadRecord)[] = [];
  for await (const record of csvRecords(chunks)) records.push(record);
  return records;
}

/**
 * An RFC 4180 writer, independent of the parser: a field is quoted when it holds a comma, a quote,
 * CR or LF (or is the only, empty field of its record, which would otherwise be a blank line),
 * quotes doubled. Returns the text and the line each record starts on.
 */
function writeCsv(records: string[][], eol: string, finalEol: boolean) {
  const quote = (field: string, alone: boolean) =>
    /[",\r\n]/.test(field) || (alone && field === '') || field.startsWith('\uFEFF')
      ? `"${field.replaceAll('"', '""')}"`
      : field;
  let text = '';
  const lines: number[] = [];
  records.forEach((fields, index) => {
    lines.push((text.match(/\r\n|\r|\n/g) ?? []).length + 1);
    text += fields.map((field) => quote(field, fields.length === 1)).join(',');
    if (index < records.length - 1 || finalEol) text += eol;
  });
  return { text, lines };
}

const tricky = fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\r', '\n', 'é', '\u0661', '\t') });
const field = fc.oneof(tricky, fc.string({ unit: 'grapheme' }));
const records = fc.array(fc.array(field, { minLength: 1, maxLength: 6 }), { maxLength: 8 });

describe('csvRecords (csv-parse, streamed)', () => {
  it('gives back any records an RFC 4180 writer wrote, with the line each starts on', async () => {
    await fc.assert(
      fc.asyncProperty(
        records,
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        async (input, eol, finalEol) => {
          const { text, lines } = writeCsv(input, eol, finalEol);
          const parsed = await parseCsv(text);
          expect(parsed.map((r) => ('fields' in r ? r.fields : r.problem))).toEqual(input);
          expect(parsed.map((r) => r.line)).toEqual(lines);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads quoted commas, doubled quotes and line breaks inside quotes, and CRLF endings', async () => {
    expect(await parseCsv('name,note\r\n"Latte, large","say ""hi""\r\nthen go"\r\nMocha,\r\n')).toEqual([
      { line: 1, fields: ['name', 'note'] },
      { line: 2, fields: ['Latte, large', 'say "hi"\r\nthen go'] },
      { line: 4, fields: ['Mocha', ''] },
    ]);
  });

  it('skips a byte-order mark and blank lines, but keeps counting lines', async () => {
    expect(await parseCsv('\uFEFFa,b\n\n1,2\n\r\n3,4')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 3, fields: ['1', '2'] },
      { line: 5, fields: ['3', '4'] },
    ]);
  });

  it('keeps spaces and an empty last field exactly', async () => {
    expect(await parseCsv(' a , b ,\n')).toEqual([{ line: 1, fields: [' a ', ' b ', ''] }]);
  });

  it('refuses a quoted field that is never closed, naming the line it opened on', async () => {
    const error = await parseCsv('a,b\n1,"two\n3,4\n').catch((err: unknown) => err);
    expect(error).toBeInstanceOf(FileSyntaxError);
    expect(error).toMatchObject({
      code: 'FILE_SYNTAX',
      line: 2,
      message: 'line 2: a quoted field is never closed',
    });
  });

  it('refuses text after a closing quote', async () => {
    await expect(parseCsv('a,b\n"one"two,3\n')).rejects.toThrow(/^line 2: text after a closing quote/);
  });
});
