import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { BIN } from './bin.js';

/** Writes a CSV of `rows` valid customers, a megabyte at a time. */
async function writeCustomers(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('externalCustomerId,phone,firstName,lastName\n');
  let chunk = '';
  for (let i = 0; i < rows; i++) {
    chunk += `cust-${i},+9665${String(i).padStart(8, '0')},Noura,Saleh\n`;
    if (chunk.length > 1_000_000 || i === rows - 1) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  await new Promise((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve(null))),
  );
}

// The child reports its own peak resident memory as it exits (kilobytes on Linux and macOS).
const REPORT_PEAK = `data:text/javascript,process.on('exit',()=>process.stderr.write('peak-rss-kb='+process.resourceUsage().maxRSS+'\\n'))`;

let dir: string;
let file: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'backfill-memory-'));
  file = join(dir, 'customers.csv');
  await writeCustomers(file, 650_000); // about 25 MB
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Issue 42 item 14: a 200 MB CSV peaked at 455 MB; memory must not grow with the file. */
it('backfill --dry-run streams a 25 MB CSV in under 150 MB of memory', async () => {
  expect((await stat(file)).size).toBeGreaterThan(24_000_000);
  const child = spawn(
    process.execPath,
    ['--import', REPORT_PEAK, BIN, 'backfill', 'customers', file, '--dry-run'],
    {
      env: { PATH: process.env.PATH ?? '' },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect({ code, stdout }).toMatchObject({ code: 0, stdout: expect.stringContaining('650000 valid rows') });
  const peakKb = Number(/peak-rss-kb=(\d+)/.exec(stderr)?.[1]);
  expect(peakKb).toBeGreaterThan(0);
  expect(peakKb / 1024).toBeLessThan(150);
}, 240_000);
