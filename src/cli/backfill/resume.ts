import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { onFile, UsageError } from '../exit-codes.js';

/** A file's SHA-256 (hex), first in its resume report, and how many lines it has (line breaks + 1). */
export interface SourceStamp {
  sha256: string;
  lines: number;
}

export async function stampFile(path: string): Promise<SourceStamp> {
  const hash = createHash('sha256');
  let breaks = 0;
  let lastWasCr = false;
  await onFile(path, async () => {
    for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      for (const byte of chunk) {
        // CRLF counts once, a lone CR or LF once each, as the CSV reader counts lines.
        if (byte === 10 && !lastWasCr) breaks += 1;
        if (byte === 13) breaks += 1;
        lastWasCr = byte === 13;
      }
    }
  });
  return { sha256: hash.digest('hex'), lines: breaks + 1 };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The rows a `--resume <report>` run sends, by line, under the eventId each had (a resent row gets the
 * cached answer). Refused unless it is this file's (SHA-256), its lines in it, each eventId one row's.
 */
export async function readResume(
  path: string,
  source: { path: string; stamp: SourceStamp },
): Promise<Map<number, string | undefined>> {
  const text = await onFile(path, () => readFile(path, 'utf8'));
  const refuse = (why: string) =>
    new UsageError(
      `${path} ${why}: pass the report a run over ${source.path} wrote, or run without --resume`,
    );
  const lines = new Map<number, string | undefined>();
  const lineOf = new Map<string, number>();
  let stamped = false;
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    let entry: { line?: unknown; eventId?: unknown; sha256?: unknown };
    try {
      entry = JSON.parse(raw) as typeof entry;
    } catch {
      throw refuse(`line ${index + 1} is not JSON`);
    }
    if (!stamped) {
      if (typeof entry.sha256 !== 'string') throw refuse('does not start with the hash of its file');
      if (entry.sha256 !== source.stamp.sha256)
        throw refuse(
          `was written for another file, or ${source.path} changed since: its hash does not match`,
        );
      stamped = true;
      continue;
    }
    const line = entry.line;
    if (typeof line !== 'number' || !Number.isInteger(line) || line < 1)
      throw refuse(`line ${index + 1} has no row line`);
    if (line > source.stamp.lines)
      throw refuse(`lists line ${line}, past the end of ${source.path} (${source.stamp.lines} lines)`);
    if (entry.eventId !== undefined) {
      if (typeof entry.eventId !== 'string' || !UUID.test(entry.eventId))
        throw refuse(`line ${index + 1} has an eventId that is not a UUID`);
      const other = lineOf.get(entry.eventId);
      if (other !== undefined && other !== line)
        throw refuse(`gives rows ${other} and ${line} the same eventId: only one of them could be sent`);
      lineOf.set(entry.eventId, line);
    }
    const eventId = typeof entry.eventId === 'string' ? entry.eventId : lines.get(line);
    lines.set(line, eventId);
  }
  if (!stamped) throw refuse('is empty');
  return lines;
}

/** Where a stopped backfill writes its resume report when no `--report` was given. */
export const resumePathFor = (path: string): string =>
  path === '-' ? 'backfill.resume.jsonl' : `${path}.resume.jsonl`;
