import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../run.js';
import { emulatedService } from './emulated-service.js';

const { emulator, dir, merchantEnv } = emulatedService('resume-');

const sha256Of = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A merchant whose service is paused, and a CSV of six customers (`<id>-0`..`<id>-5`) for it. */
function pausedWithSixCustomers(tenant: string, file: string, id: string, phone: string) {
  const { tenantId, env } = merchantEnv(tenant);
  const csv = join(dir, file);
  const rows = Array.from({ length: 6 }, (_, i) => `${id}-${i},${phone}${i}`);
  writeFileSync(csv, ['externalCustomerId,phone', ...rows, ''].join('\n'));
  emulator.pause(tenantId);
  return { tenantId, env, csv, rows };
}

describe('backfill --resume', () => {
  it('sends the rows a stopped run did not, each under the eventId it had, so none is processed twice', async () => {
    const { tenantId, env, csv } = pausedWithSixCustomers('resuming', 'customers.csv', 'c', '+96650000000');
    const stopped = await cli(['backfill', 'customers', csv, '--no-retry'], { env });
    expect(stopped.code).toBe(3);
    const report = `${csv}.resume.jsonl`;
    expect(stopped.stdout).toContain(
      `  resume with: loyalty-partner backfill customers ${csv} --resume ${report} `,
    );
    expect(stopped.stdout).not.toContain('--event-id');
    const [stamp, ...listed] = readFileSync(report, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(stamp).toEqual({ file: csv, sha256: sha256Of(csv) });
    expect(listed.map((entry) => entry.line)).toEqual([2, 3, 4, 5, 6, 7]);
    const eventIds = listed.map((entry) => entry.eventId as string);
    expect(new Set(eventIds).size).toBe(6);

    emulator.resume(tenantId);
    const resumed = await cli(['backfill', 'customers', csv, '--resume', report], { env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain('6 rows read, 6 sent, 0 failed');
    // The paused service refused the first batch event: these rows never reached it before.
    for (const eventId of eventIds)
      expect(emulator.events({ eventId }).map((r) => r.outcome)).toEqual(['processed']);

    // Resumed once more from the same report: every row is answered from the response cache.
    const again = await cli(['backfill', 'customers', csv, '--resume', report], { env });
    expect(again.code).toBe(0);
    for (const eventId of eventIds) expect(emulator.events({ eventId }).at(-1)?.outcome).toBe('replayed');
    expect(emulator.merchant(tenantId).customers).toHaveLength(6);
  });

  it('skips the rows a report does not list: they were sent', async () => {
    const { env } = merchantEnv('partial');
    const csv = join(dir, 'branches.csv');
    writeFileSync(csv, 'externalBranchId,name,isActive\nb-1,One,true\nb-2,Two,true\nb-3,Three,true\n');
    const report = join(dir, 'partial.jsonl');
    writeFileSync(report, `{"sha256":"${sha256Of(csv)}"}\n{"line":3,"path":"","message":"not sent"}\n`);
    const result = await cli(['backfill', 'branches', csv, '--resume', report], { env });
    expect(result.stdout).toContain('1 row read, 1 sent, 0 failed');
    expect(emulator.merchant('partial').branches.map((b) => b.externalBranchId)).toEqual(['b-2']);
  });
  it("refuses a tampered report, another file's report and a changed file, sending nothing, exit 2", async () => {
    const { tenantId, env, csv, rows } = pausedWithSixCustomers(
      'tampered',
      'tampered.csv',
      't',
      '+96650000100',
    );
    const report = join(dir, 'tampered.resume.jsonl');
    expect((await cli(['backfill', 'customers', csv, '--no-retry', '--report', report], { env })).code).toBe(
      3,
    );
    emulator.resume(tenantId);
    const [stamp = '', ...lines] = readFileSync(report, 'utf8').trim().split('\n');
    const entries = lines.map((line) => JSON.parse(line) as { line: number; eventId: string });
    const write = (name: string, body: string[]) => {
      writeFileSync(join(dir, name), `${body.join('\n')}\n`);
      return join(dir, name);
    };
    const oneEventId = write('one-id.jsonl', [
      stamp,
      ...entries.map((e) => JSON.stringify({ ...e, eventId: entries[0]?.eventId })),
    ]);
    const outOfRange = write('range.jsonl', [
      stamp,
      ...entries.map((e) => JSON.stringify({ ...e, line: e.line + 40 })),
    ]);
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'externalCustomerId,phone\nx-1,+966500009999\n');
    const otherReport = write('other.jsonl', [`{"sha256":"${sha256Of(other)}"}`, ...lines]);
    const unstamped = write('unstamped.jsonl', lines);
    for (const [bad, why] of [
      [oneEventId, 'the same eventId'],
      [outOfRange, 'past the end of'],
      [otherReport, 'was written for another file'],
      [unstamped, 'does not start with the hash of its file'],
    ] as const) {
      const result = await cli(['backfill', 'customers', csv, '--resume', bad], { env });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(why);
      expect(result.stdout).not.toContain('PASS');
    }
    writeFileSync(csv, ['externalCustomerId,phone', ...rows, 't-9,+966500001009', ''].join('\n'));
    const changed = await cli(['backfill', 'customers', csv, '--resume', report], { env });
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain(`${csv} changed since`);
    expect(emulator.merchant(tenantId).customers).toHaveLength(0);
  });
});
