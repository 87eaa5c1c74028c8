import { MAX_BATCH_ITEMS } from '../../contract/index.js';
import { parseCommandArgs } from '../args.js';
import { CsvSyntaxError } from '../backfill/csv.js';
import { createProgress } from '../backfill/progress.js';
import { type ReadRows, readCsv, readJsonLines } from '../backfill/rows.js';
import { sendRows } from '../backfill/send-rows.js';
import { reportBackfill } from '../backfill/summary.js';
import { BACKFILL_TARGETS } from '../backfill/targets.js';
import { CLIENT_ENV, clientFromEnv } from '../client-env.js';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.js';
import { type CliIo, plural, readInput } from '../io.js';
import type { Command } from './command.js';

const NAMES = [...BACKFILL_TARGETS.keys()];

const HELP = `Usage: loyalty-partner backfill <${NAMES.join('|')}> <file.jsonl | file.csv> [options]

Sends a bulk import of branches, customers, products or coupons with client.syncBatch: batches
of ${MAX_BATCH_ITEMS}, sent as single-entity events while the batch type is Planned. Every row is
validated by the contract first; bad rows are reported by line number and never sent.

Files: JSON Lines (one object per line), or CSV with a header row naming the fields
(${[...BACKFILL_TARGETS.values()].map((t) => `${t.name}: ${[...t.fields.keys()].join(', ')}`).join('; ')}).
CSV cells become numbers and booleans where the field is one; an empty cell omits the field.

Environment: ${CLIENT_ENV.baseUrl}, ${CLIENT_ENV.apiKey}, ${CLIENT_ENV.signingSecret} (as for send).

Options:
  --format <csv|jsonl>   the file's format (default: from its extension; required for -)
  --report <file.jsonl>  write every failed row as {"line","path","message"}, one per line
  --dry-run              validate only: send nothing, need no credentials
  --secret-file <path>   file with one signing secret per line
  --no-retry             one attempt per event: stop at once if the service is unavailable
  -h, --help             show this help

Progress goes to stderr (a bar on a terminal, a line per ${MAX_BATCH_ITEMS} rows otherwise); the
summary and the failed rows to stdout. Row values are never printed (they may be personal data).

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

/** `loyalty-partner backfill`: a validated bulk import of one entity type from a file. */
export const backfillCommand: Command = {
  name: 'backfill',
  summary: 'send branches, customers, products or coupons from a CSV or JSONL file',
  help: HELP,
  async run(argv: readonly string[], io: CliIo) {
    const { values, positionals } = parseCommandArgs('backfill', argv, {
      format: { type: 'string' },
      report: { type: 'string' },
      'dry-run': { type: 'boolean' },
      'secret-file': { type: 'string' },
      'no-retry': { type: 'boolean' },
    });
    if (values.help) {
      io.stdout.write(`${HELP}\n`);
      return EXIT.ok;
    }
    const [name, path, extra] = positionals;
    const target = name === undefined ? undefined : BACKFILL_TARGETS.get(name);
    if (!target || path === undefined || extra !== undefined) {
      throw new UsageError(
        `backfill: expected <${NAMES.join('|')}> <file> (see loyalty-partner backfill --help)`,
      );
    }
    const format = formatOf(path, values.format);
    const text = Buffer.from(await readInput(io, path)).toString('utf8');
    let rows: ReadRows;
    try {
      rows = format === 'csv' ? readCsv(text, target) : readJsonLines(text, target);
    } catch (err) {
      if (err instanceof CsvSyntaxError) throw new UsageError(`${path}: ${err.message}`);
      throw err;
    }
    const failures = [...rows.failures];
    let sent = 0;
    let exit: ExitCode = EXIT.ok;
    const notes: string[] = [];
    if (values['dry-run']) {
      notes.push(`dry run: ${plural(rows.valid.length, 'valid row')}, nothing sent`);
    } else {
      const client = await clientFromEnv(io, {
        secretFile: values['secret-file'],
        ...(values['no-retry'] && { retry: false as const }),
      });
      const progress = createProgress(io, rows.valid.length);
      try {
        const outcome = await sendRows(client, target, rows.valid, (n) => progress.update(n));
        progress.done(outcome.sent);
        sent = outcome.sent;
        failures.push(...outcome.failures);
        if (outcome.fallback)
          notes.push(
            `${target.batchType} is not handled yet (Planned): rows went as ${target.singleType} events`,
          );
        if (outcome.stopped) {
          notes.push(`stopped: ${outcome.stopped.line}`);
          exit = outcome.stopped.exit;
        }
      } finally {
        await client.close();
      }
    }
    failures.sort((a, b) => a.line - b.line);
    const failedRows = await reportBackfill(io, {
      entity: target.name,
      path,
      read: rows.read,
      sent,
      failures,
      notes,
      report: values.report,
    });
    if (exit !== EXIT.ok) return exit;
    return failedRows > 0 ? EXIT.failed : EXIT.ok;
  },
};
