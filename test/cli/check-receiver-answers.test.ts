/*
 * What the built CLI does with answers that never end: an endless body, a gzip bomb and a body
 * that trickles in. Each run is a child process (`node dist/cli.js`) whose peak memory a preload
 * (fixtures/peak-rss.mjs) reports, so the bound is the one a partner's CI would see.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { CheckReceiverReport } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { runBin } from './bin.js';
import { startPythonReceiver } from './fixtures/receivers/python-receiver.js';
import { secretDir } from './secret-dir.js';

const SECRET = 'whsec_python_receiver_0123456789';
const TENANT = 'merchant-1';
const TIMEOUT_MS = 5000;
/** Far below what reading a whole answer took (1.5 GB), far above what Node itself needs. */
const MEMORY_BOUND_KIB = 200 * 1024;
const PRELOAD = pathToFileURL(fileURLToPath(new URL('./fixtures/peak-rss.mjs', import.meta.url))).href;

const files = secretDir('check-receiver-answers-', SECRET);

/** How long the built CLI takes to start and end doing nothing (`--help`), right now. */
async function startupMs(): Promise<number> {
  const started = performance.now();
  await runBin(['check-receiver', '--help']);
  return performance.now() - started;
}

/** Runs the built CLI against receiver.py doing `mistake`; its output, wall time and peak RSS. */
async function runAgainst(mistake: string, args: (url: string) => string[]) {
  const receiver = await startPythonReceiver({ secret: SECRET, tenant: TENANT, mistake });
  const rssFile = join(files.dir, `${mistake}-${args('').join('-').length}.rss`);
  try {
    const started = performance.now();
    const run = await runBin(args(receiver.url), {
      env: { NODE_OPTIONS: `--import=${PRELOAD}`, PEAK_RSS_FILE: rssFile },
    });
    // The time the kit took: the run's, less what starting Node and the CLI takes on this machine.
    const ms = performance.now() - started - (await startupMs());
    return { ...run, ms, peakKib: Number(await readFile(rssFile, 'utf8')) };
  } finally {
    await receiver.stop();
  }
}

/** What check-receiver and trigger are given besides the receiver's URL. */
const signedAs = () => [
  '--secret-file',
  files.secretFile,
  '--tenant',
  TENANT,
  '--timeout-ms',
  String(TIMEOUT_MS),
];
const checkArgs = (url: string) => ['check-receiver', url, ...signedAs(), '--json'];

describe('check-receiver against answers that never end', () => {
  it.each([
    ['endless', /^HTTP 200, but the answer went on past 1 MiB \(decoded\): stopped reading$/],
    ['gzip-bomb', /^HTTP 200, but the answer went on past 1 MiB \(decoded\): stopped reading$/],
    [
      'trickle',
      /^HTTP 200, but the answer was not complete within 5000 ms \(\d+ bytes came\): stopped reading$/,
    ],
  ])(
    '%s: ends within twice its timeout per case sent, below 200 MB, naming the problem',
    async (mistake, observed) => {
      const run = await runAgainst(mistake, checkArgs);
      const report = JSON.parse(run.stdout) as CheckReceiverReport;
      const [first, second] = report.cases;
      expect(first).toMatchObject({ pass: false, observed: expect.stringMatching(observed) });
      expect(first?.fix).toMatch(/^answer with a short body that ends at once/);
      expect(second).toMatchObject({ pass: false, observed: expect.stringMatching(observed) });
      // After two cases without a whole answer the rest are not sent: the run stays bounded.
      const sent = report.cases.filter((c) => !c.observed.startsWith('not sent')).length - 1;
      expect(sent).toBe(2);
      expect(run.ms).toBeLessThan(2 * TIMEOUT_MS * sent);
      expect(run.peakKib).toBeLessThan(MEMORY_BOUND_KIB);
      expect(run.code).toBe(1);
    },
  );
});

describe('trigger against answers that never end', () => {
  it.each([
    ['endless', /went on past 1 MiB/],
    ['gzip-bomb', /went on past 1 MiB/],
    ['trickle', /not complete within 5000 ms/],
  ])('%s: ends within twice its timeout, below 200 MB, naming the problem', async (mistake, problem) => {
    const run = await runAgainst(mistake, (url) => [
      'trigger',
      'IntegrationStatusChanged',
      '--to',
      url,
      ...signedAs(),
    ]);
    expect(run.stderr).toMatch(problem);
    expect(run.ms).toBeLessThan(2 * TIMEOUT_MS);
    expect(run.peakKib).toBeLessThan(MEMORY_BOUND_KIB);
    expect(run.code).toBe(3);
  });
});
