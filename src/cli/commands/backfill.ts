import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { MAX_BATCH_ITEMS, newEventId } from '../../contract/index.js';
import { integerFlag, switchFlags, valueFlags } from '../args.js';
import { FileSyntaxError } from '../backfill/file-syntax-error.js';
import { createProgress } from '../backfill/progress.js';
import { readResume, resumePathFor, stampFile } from '../backfill/resume.js';
import { csvRows, jsonLinesRows, type OutgoingRow, type RowFailure } from '../backfill/rows.js';
import { notSent, type SendState, sendChunk, stopReason } from '../backfill/send-rows.js';
import { reportBackfill } from '../backfill/summary.js';
import { BACKFILL_TARGETS } from '../backfill/targets.js';
import { CLIENT_ENV, CLIENT_FLAGS, clientFromEnv } from '../client-env.js';
import type { ErrorReport } from '../describe-error.js';
import { EXIT, type ExitCode, onFile, UsageError } from '../exit-codes.js';
import { plural } from '../io.js';
import { defineCommand } from './command.js';

const NAMES = [...BACKFILL_TARGETS.keys()];

const HELP = `Usage: loyalty-partner backfill <${NAMES.join('|')}> <file.jsonl | file.csv> [options]

Sends a bulk import of branches, customers, products or coupons with client.syncBatch: batches
of ${MAX_BATCH_ITEMS}, sent as single-entity events while the batch type is Planned. Every row is
validated by the contract first; bad rows are reported by line number and never sent.

Files: JSON Lines (one object per line), or UTF-8 CSV with a header row naming the fields
(${[...BACKFILL_TARGETS.values()].map((t) => `${t.name}: ${[...t.fields.keys()].join(', ')}`).join('; ')}).
CSV cells become numbers and booleans where the field is one; an empty cell omits the field.
A row with a double quote inside an unquoted field (12" pizza) is reported by its line and the
others are sent; bytes that are not UTF-8, or a row past --max-row-size, stop the reading at their
line (rows before it are sent).

Environment: ${CLIENT_ENV.baseUrl}, ${CLIENT_ENV.apiKey}, ${CLIENT_ENV.signingSecret} (as for send).

Options:
  --format <csv|jsonl>   the file's format (default: from its extension; required for -)
  --report <file.jsonl>  write every failed row as {"line","path","message"}, one per line
                         (a row not sent also gets its "eventId")
  --resume <report>      send only the rows a stopped run's report lists, each under the eventId
                         it had: rows sent before are skipped, none is processed twice. The report
                         starts with the file's SHA-256: one written for another file, or for this
                         file before it changed, is refused, as are line numbers past its end and
                         one eventId given to two rows
  --dry-run              validate only: send nothing, need no credentials
  --max-row-size <n>     the longest row (CSV) or line (JSON Lines) read, in characters
                         (default 1048576, 1 MiB): a longer one (an unclosed quote?) stops
                         the reading with its line
  --secret-file <path>   file with one signing secret per line
  --no-retry             one attempt per event: stop at once if the service is unavailable
  -h, --help             show this help

The file is streamed: memory holds one batch of ${MAX_BATCH_ITEMS} rows, whatever its size. Progress
goes to stderr with rows/s and the time left (a bar on a terminal, a line every few seconds
otherwise); the summary and the failed rows to stdout. When the service stays unavailable, the
backfill stops and writes a resume report (--report, or <file>.resume.jsonl). Row values are
never printed (they may be personal data).

Exit codes: 0 every row was sent; 1 some rows failed (or the credentials were refused);
2 usage error (unknown entity, unreadable or malformed file); 3 the service stayed unavailable.`;

function formatOf(path: string, flag: string | undefined): 'csv' | 'jsonl' {
  const format = flag ?? /\.(csv|jsonl|ndjson)$/i.exec(path)?.[1]?.toLowerCase();
  if (format === 'csv') return 'csv';
  if (format === 'jsonl' || format === 'ndjson') return 'jsonl';
  throw new UsageError(
    flag === undefined
      ? `backfill: cannot tell the format of ${path}: name it .csv or .jsonl, or pass --format`
      : `--format must be csv or jsonl, not ${JSON.stringify(flag)}`,
  );
}

export const backfillCommand = defineCommand({
  name: 'backfill',
  summary: 'send branches, customers, products or coupons from a CSV or JSONL file',
  help: HELP,
  flags: {
    ...valueFlags('format', 'report', 'resume', 'max-row-size'),
    ...switchFlags('dry-run'),
    ...CLIENT_FLAGS,
  },
  async run({ values, positionals, io }) {
    const [name, path, extra] = positionals;
    const target = name === undefined ? undefined : BACKFILL_TARGETS.get(name);
    if (!target || path === undefined || extra !== undefined) {
      throw new UsageError(
        `backfill: expected <${NAMES.join('|')}> <file> (see loyalty-partner backfill --help)`,
      );
    }
    const format = formatOf(path, values.format);
    if (values.resume !== undefined && path === '-')
      throw new UsageError(
        '--resume needs the file itself, not standard input: its report is checked against it',
      );
    const resume =
      values.resume === undefined
        ? undefined
        : await readResume(values.resume, { path, stamp: await stampFile(path) });
    const size = path === '-' ? undefined : (await onFile(path, () => stat(path))).size;
    let bytes = 0;
    // What was read of standard input, for its report; a file is hashed again in full.
    const hash = createHash('sha256');
    const counted = async function* () {
      const chunks = path === '-' ? io.stdin : createReadStream(path);
      for await (const chunk of chunks as AsyncIterable<Uint8Array | string>) {
        bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        if (path === '-') hash.update(chunk);
        yield chunk;
      }
    };
    const seen = new Set<number>();
    const maxRowSize = integerFlag('max-row-size', values['max-row-size'], 'characters');
    const readRows = format === 'csv' ? csvRows : jsonLinesRows;
    const dryRun = Boolean(values['dry-run']);
    const client = dryRun ? undefined : await clientFromEnv(io, values);
    const progress = dryRun ? undefined : createProgress(io, size);
    const failures: RowFailure[] = [];
    const notes: string[] = [];
    const state: SendState = { planned: false };
    let read = 0;
    let valid = 0;
    let sent = 0;
    let stopped: ErrorReport | undefined;
    let exit: ExitCode = EXIT.ok;
    let chunk: OutgoingRow[] = [];
    // Rows go out a chunk at a time as the file is read: memory holds one chunk, not the file.
    const flush = async () => {
      const outgoing = chunk;
      chunk = [];
      if (outgoing.length === 0 || !client) return;
      if (stopped) {
        const report = stopped;
        failures.push(...outgoing.map((row) => notSent(row, report)));
        return;
      }
      const base = sent;
      const outcome = await sendChunk(client, target, outgoing, state, (n) =>
        progress?.update(base + n, bytes),
      );
      sent += outcome.sent;
      failures.push(...outcome.failures);
      stopped ??= outcome.stopped;
    };
    try {
      for await (const row of readRows(counted(), target, maxRowSize)) {
        // Only a resume needs the lines met (report lines past the end); a set of all grows with the file.
        if (resume) {
          if (!resume.has(row.line)) continue;
          seen.add(row.line);
        }
        read += 1;
        if ('failures' in row) {
          failures.push(...row.failures);
          continue;
        }
        valid += 1;
        if (dryRun) continue;
        chunk.push({ ...row, eventId: resume?.get(row.line) ?? newEventId() });
        if (chunk.length >= MAX_BATCH_ITEMS) await flush();
      }
      await flush();
    } catch (err) {
      if (!(err instanceof FileSyntaxError)) throw err;
      // Rows before the broken line may have gone already: say so, and where reading stopped.
      await flush();
      if (read === 0) throw new UsageError(`${path}: ${err.message}`);
      notes.push(`stopped reading ${path}: ${err.message}; the rows before it were handled`);
      exit = EXIT.usage;
    } finally {
      progress?.done(sent);
      await client?.close();
    }
    if (dryRun) notes.push(`dry run: ${plural(valid, 'valid row')}, nothing sent`);
    if (state.planned)
      notes.push(
        `${target.batchType} is not handled yet (Planned): rows went as ${target.singleType} events`,
      );
    let report = values.report;
    if (stopped) {
      notes.push(`stopped: ${stopReason(stopped)}`);
      report ??= resumePathFor(path);
      notes.push(
        `resume with: loyalty-partner backfill ${target.name} ${path} --resume ${report} ` +
          '(each row keeps its eventId: nothing is processed twice)',
      );
      exit = stopped.exit;
    }
    const unknown = resume ? [...resume.keys()].filter((line) => !seen.has(line)) : [];
    if (unknown.length > 0) {
      notes.push(`the resume report lists lines where no row of ${path} starts: ${unknown.join(', ')}`);
      if (exit === EXIT.ok) exit = EXIT.usage;
    }
    failures.sort((a, b) => a.line - b.line);
    const failedRows = await reportBackfill(io, {
      entity: target.name,
      path,
      read,
      sent,
      failures,
      notes,
      report,
      sha256: report === undefined ? '' : path === '-' ? hash.digest('hex') : (await stampFile(path)).sha256,
    });
    if (exit !== EXIT.ok) return exit;
    return failedRows > 0 ? EXIT.failed : EXIT.ok;
  },
});
