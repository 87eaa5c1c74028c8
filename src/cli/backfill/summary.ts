import { writeFile } from 'node:fs/promises';
import { formatIssue } from '../describe-error.js';
import { onFile } from '../exit-codes.js';
import { type CliIo, createStyle, plural } from '../io.js';
import type { RowFailure } from './rows.js';

/** Failed rows listed on stdout; `--report` holds them all. */
const LISTED_FAILURES = 20;

export interface BackfillSummary {
  entity: string;
  path: string;
  read: number;
  sent: number;
  /** Every problem, sorted by line; a row may have several. */
  failures: readonly RowFailure[];
  notes: readonly string[];
  report: string | undefined;
  /** The SHA-256 of the file read, written first in the report: `--resume` checks it. */
  sha256: string;
}

/** Prints the summary, writes `--report`, returns the failed rows; never a row's values (personal data). */
export async function reportBackfill(io: CliIo, summary: BackfillSummary): Promise<number> {
  const style = createStyle(io);
  const { failures } = summary;
  const failedRows = new Set(failures.map((f) => f.line)).size;
  const mark = failedRows === 0 ? style.pass : style.fail;
  const counts = `${plural(summary.read, 'row')} read, ${summary.sent} sent, ${failedRows} failed`;
  io.stdout.write(`${mark} backfill ${summary.entity} from ${summary.path}: ${counts}\n`);
  for (const note of summary.notes) io.stdout.write(`  ${note}\n`);
  if (failures.length > 0) {
    io.stdout.write('failed rows:\n');
    for (const failure of failures.slice(0, LISTED_FAILURES)) {
      io.stdout.write(`  ${style.red(`line ${failure.line}: ${formatIssue(failure)}`)}\n`);
    }
    const more = failures.length - LISTED_FAILURES;
    if (more > 0) {
      io.stdout.write(`  ... and ${more} more${summary.report ? '' : ' (--report <file> lists all)'}\n`);
    }
  }
  const { report } = summary;
  if (report !== undefined) {
    const lines = failures.map(
      (f) =>
        `${JSON.stringify({ line: f.line, path: f.path, message: f.message, ...(f.eventId && { eventId: f.eventId }) })}\n`,
    );
    const stamp = `${JSON.stringify({ file: summary.path, sha256: summary.sha256 })}\n`;
    await onFile(report, () => writeFile(report, stamp + lines.join('')), 'write');
    io.stdout.write(`report: ${plural(failures.length, 'problem')} in ${report}\n`);
  }
  return failedRows;
}
