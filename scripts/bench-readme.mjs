#!/usr/bin/env node
// Writes bench/README.md from bench/results/latest.json: `node scripts/bench-readme.mjs` (also
// the last step of `npm run bench`). The figures are never edited by hand; the prose around them
// says how they were taken. test/docs/bench-readme.test.ts checks the file is what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const RESULTS = new URL('../bench/results/latest.json', import.meta.url);
const README = new URL('../bench/README.md', import.meta.url);

/** What each comparison measures, printed under its tables. */
const NOTES = {
  signature:
    'The floor is the least a verifier can do with `node:crypto` the obvious way: one `createHmac` over `<t>.` and the body, one `timingSafeEqual`. `verifySignature` adds the header parsing, the tolerance check and secret rotation. standardwebhooks runs its HMAC in JavaScript (measured with `jsonParse: false`, so that it too checks only the signature). The Web Crypto functions are what edge runtimes have; on Node each call is a job on another thread.',
  receiver:
    '`constructEvent` verifies and runs `JSON.parse`; `receiver.handle` also validates the envelope and its payload against the contract, claims the `eventId` in the inbox, runs the handler and builds the answer. The second table shows where one delivery’s CPU time goes. The goal is the median of the per-round ratios of the two contenders, which ran back to back. The Web build row is what edge runtimes get: asynchronous Web Crypto, and no compiled schemas.',
  client:
    'The server runs in a child process and answers at once, so each client is bound by its own CPU. The raw `undici.request` and `fetch` loops post a body serialised and signed beforehand; each `client.send` builds, validates, serialises and signs its event, with its retry bookkeeping. These rows are for scale: the goal is the SDK’s own CPU per event. On a real network the round trip, not this CPU time, sets the pace.',
  telemetry:
    'The SDK’s CPU time per `client.send` with an in-process `fetch` answering 200: telemetry off (the default) against tracing and metrics on (OpenTelemetry SDK 2.x, spans batched to an exporter).',
  outbox:
    '`enqueue` resolves once the event is fsynced. Callers enqueueing together share one write and one fsync (group commit); one caller awaiting each event pays an fsync per event, so its rate is the disk’s.',
  'outbox-drain':
    'The backlog is a kiosk’s day (per customer a sync, six sales, a coupon sync, use and cancellation; 200 customers) queued while offline, drained to a loopback server answering at once or after 50 ms. The server runs in its own process, so the figures are the SDK’s. The first drain of a fresh process is timed on its own: V8 compiles the send, journal and scheduler paths during it.',
  'outbox-postgres':
    'A one-row sale transaction alone, with `enqueue({ tx })`, and with one statement more of any kind (`SELECT 1`, the floor any enqueue sits on). The enqueue’s goals are the median of the per-round ratios of the enqueue and the hand-written INSERT, which ran back to back, in turn first; each driver is measured on its own, as a POS server uses one (bench/outbox-postgres.mjs says what measuring both in the same rounds did to the pg ratio). The drain runs 1 and 4 processes against a service 20 ms away, with the CPU of the drainers and of PostgreSQL per delivered event.',
  stores:
    'One claim and one completion per delivery, as the receiver makes them, against the test servers on loopback.',
  queues:
    'The deferred receiver beside the same receiver built by hand on graphile-worker (verify, `addJob` in the request, a task) and on pg-boss (verify, `send`, `work`), on one PostgreSQL, each with a server process and 4 worker processes whose handler or task does the same INSERT. The receipts of the three are interleaved request by request under one load, sent over kept-open node:http connections after 1,500 untimed deliveries to each, with the workers idle; then each queue’s workers drain the deliveries stored, one queue at a time, timed until the last effect is written. Same concurrency per worker process: the SDK’s 16 handlers, graphile-worker `concurrency: 16`, pg-boss `batchSize: 16` polling every 0.5 s (its shortest). Each figure is the median of 5 rounds of 4,000 deliveries, each with fresh processes, and each goal the median of the rounds’ ratios (with 3 rounds of 2,000, a p99 ratio ranged from 0.81x to 1.24x between runs). Why a drain and not the time from the first send is in bench/queues.mjs.',
  'import-time':
    'The time each entry adds to a fresh `node` process, measured inside the process, median of 15 processes.',
};

/** The heading of each comparison. */
const TITLES = {
  signature: 'Signing and verifying',
  receiver: 'Receiving',
  client: 'Sending',
  telemetry: 'Telemetry',
  outbox: 'Outbox on disk',
  'outbox-drain': 'Draining a kiosk backlog',
  'outbox-postgres': 'Transactional outbox on Postgres',
  stores: 'Inbox stores',
  queues: 'Deferred receipt beside graphile-worker and pg-boss',
  'import-time': 'Cold import',
};

export const number = (value, unit) => {
  if (unit === 'ops/s' || unit === 'events/s') return Math.round(value).toLocaleString('en-US');
  return value >= 100 ? value.toFixed(0) : value.toFixed(value >= 10 ? 1 : 2);
};

/** One comparison as a Markdown table (also what `bench/run.mjs` prints). */
export function table(section) {
  const base = section.rows.find((row) => row.name === section.baseline);
  const header = base
    ? [`| ${section.title} | ${section.unit} | ± | SDK ÷ this |`, '|---|--:|--:|--:|']
    : [`| ${section.title} | ${section.unit} |`, '|---|--:|'];
  const lines = section.rows.map((row) => {
    const value = row.opsPerSec ?? row.value;
    const spread = row.spread === undefined ? '' : `${(row.spread * 100).toFixed(1)}%`;
    if (!base) return `| ${row.name} | ${number(value, section.unit)} |`;
    const relative = row === base ? '1.00x' : `${(base.opsPerSec / row.opsPerSec).toFixed(2)}x`;
    return `| ${row.name} | ${number(value, section.unit)} | ${spread} | ${relative} |`;
  });
  return [...header, ...lines].join('\n');
}

/** One goal as a table row: PASS, or FAIL when the figure misses its target. */
export function goalLine({ goal, value, target, unit, pass }) {
  const shown =
    unit === 'x' ? `${value.toFixed(2)}x` : `${number(value, unit === '/s' ? 'ops/s' : unit)}${unit}`;
  return `| ${pass ? 'PASS' : 'FAIL'} | ${goal} | ${shown} | ${target} |`;
}

/** Where the figures were taken, as the results file recorded it. */
function machineLine(report) {
  const m = report.machine;
  const versions = Object.entries(report.versions ?? {})
    .map(([name, version]) => `${name} ${version}`)
    .join(', ');
  const where = m ? `${m.cpu}, ${m.cores} cores, Node.js ${m.node}, ${m.platform}` : 'machine not recorded';
  return `Taken ${report.date.slice(0, 10)} on: ${where}. Packages: ${versions}. The run took ${report.seconds} s.`;
}

/** The whole of bench/README.md for one results file. */
export function renderBenchReadme(report) {
  const out = [
    '# Performance',
    '',
    '<!-- Generated from bench/results/latest.json by scripts/bench-readme.mjs (run by `npm run bench`): do not edit by hand. -->',
    '',
    '`npm run bench` builds the package and measures what users install (`dist/`, resolved through',
    'the `exports` map as on Node), side by side with what they would use instead, then writes',
    '`bench/results/latest.json` and this file. `node bench/run.mjs signature receiver` runs a subset,',
    'after a build, without saving it.',
    '',
    machineLine(report),
    '',
    '## How to read it',
    '',
    '- Contenders of one table run in interleaved rounds (A B C, A B C, ...) in one process, so that',
    '  machine noise hits them alike; each figure is the median of its rounds, `±` half the',
    '  interquartile range. Each comparison runs in a fresh process.',
    '- Synchronous work (signing, verifying, receiving) is timed by the process’s CPU time, with V8’s',
    '  garbage collector on the main thread, so that each contender pays for its own garbage. Sending,',
    '  the outbox and imports are timed by the wall clock.',
    '- Every webhook is the same `LoyaltyRuleChanged` envelope of exactly 1,024 bytes, handed over as',
    '  the `Buffer` a server reads; stripe-node’s header has the same `t=...,v1=...` format, so it gets',
    '  the very same header.',
    '- `SDK ÷ this` is the SDK’s figure over the row’s: above 1.00x the SDK is faster.',
    '- On virtual machines, micro-benchmarks, cold imports and disk-bound figures move by tens of',
    '  percent from run to run and by about twice from one machine to the next: compare figures of',
    '  one run, not across runs.',
    '',
    '## Goals',
    '',
    '| | goal | measured | target |',
    '|---|---|--:|--:|',
  ];
  const names = Object.keys(report.results);
  for (const name of names) for (const goal of report.results[name].goals ?? []) out.push(goalLine(goal));
  for (const name of names) {
    out.push('', `## ${TITLES[name] ?? name}`, '');
    for (const section of report.results[name].sections) out.push(table(section), '');
    if (NOTES[name]) out.push(NOTES[name], '');
    out.pop();
  }
  return `${out.join('\n')}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = JSON.parse(readFileSync(RESULTS, 'utf8'));
  writeFileSync(README, renderBenchReadme(report));
  console.log('bench/README.md written from bench/results/latest.json');
}
