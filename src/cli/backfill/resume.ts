import { readFile } from 'node:fs/promises';
import { UsageError } from '../exit-codes.js';

/**
 * The rows a `--resume <report>` run sends: the lines the report lists (rows not sent, refused or
 * invalid last time), each with the eventId it was sent under, when it was. Every other line was
 * sent and is skipped; a row resent under its old eventId gets the service's cached answer.
 */
export async function readResume(path: string): Promise<Map<number, string | undefined>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
  const lines = new Map<number, string | undefined>();
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    let entry: { line?: unknown; eventId?: unknown };
    try {
      entry = JSON.parse(raw) as typeof entry;
    } catch {
      throw new UsageError(
        `${path} line ${index + 1} is not JSON: pass the --report file of the run to resume`,
      );
    }
    if (typeof entry.line !== 'number')
      throw new UsageError(
        `${path} line ${index + 1} has no row line: pass the --report file of the run to resume`,
      );
    const eventId = typeof entry.eventId === 'string' ? entry.eventId : lines.get(entry.line);
    lines.set(entry.line, eventId);
  }
  return lines;
}

/** Where a stopped backfill writes its resume report when no `--report` was given. */
export const resumePathFor = (path: string): string =>
  path === '-' ? 'backfill.resume.jsonl' : `${path}.resume.jsonl`;
