/**
 * `npm run bench` (after `npm run build`): runs every comparison against the built package,
 * each in a fresh process (no JIT state or heap carried from one to the next), prints one
 * Markdown table per comparison and a PASS/FAIL line per goal, and writes everything to
 * `bench/results/latest.json`. `node bench/run.mjs signature client` runs a subset, unsaved.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { goalLine, table } from '../scripts/bench-readme.mjs';

/** The comparisons, in the order they run and print. */
const MODULES = [
  'signature',
  'receiver',
  'client',
  'telemetry',
  'outbox',
  'outbox-drain',
  'outbox-postgres',
  'stores',
  'deferred',
  'import-time',
  'kiosk',
  'queues',
];
/**
 * Node flags of each comparison's process. Those timed by CPU time run V8's garbage collector on
 * the main thread, so that each contender pays for its own garbage: with helper threads, the
 * collection of one contender's garbage lands in the CPU time of whichever runs next.
 */
const FLAGS = {
  signature: ['--single-threaded-gc'],
  // --expose-gc: the receiver comparison starts and ends each sample with a minor collection.
  receiver: ['--single-threaded-gc', '--expose-gc'],
};
const RESULTS = new URL('./results/latest.json', import.meta.url);

function machine() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? 'unknown CPU';
  return { cpu: model, cores: availableParallelism(), node: process.version, platform: process.platform };
}

function versions() {
  // Read from disk: some of these packages do not export their package.json.
  const version = (path) =>
    JSON.parse(readFileSync(new URL(`../${path}package.json`, import.meta.url), 'utf8')).version;
  return {
    'loyalty-partner-sdk': version(''),
    stripe: version('node_modules/stripe/'),
    standardwebhooks: version('node_modules/standardwebhooks/'),
    undici: version('node_modules/undici/'),
  };
}

/** Runs one comparison in a child process and returns what its `run()` resolved to. */
async function runIsolated(name) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', name], {
    stdio: 'inherit',
    execArgv: FLAGS[name] ?? [],
  });
  let message = { error: 'it exited without a result' };
  child.on('message', (sent) => {
    message = sent;
  });
  const [code] = await once(child, 'exit');
  if (code !== 0 || message.error)
    throw new Error(`bench ${name} failed: ${message.error ?? `exit ${code}`}`);
  return message.result;
}

if (process.argv[2] === '--child') {
  const { run } = await import(`./${process.argv[3]}.mjs`);
  const result = await run().then(
    (value) => ({ result: value }),
    (err) => ({ error: err?.stack ?? String(err) }),
  );
  process.send(result, () => process.exit(result.error ? 1 : 0));
} else {
  await main();
}

async function main() {
  const chosen = process.argv.slice(2);
  const modules = chosen.length ? MODULES.filter((name) => chosen.includes(name)) : MODULES;
  const started = performance.now();
  const results = {};
  for (const name of modules) {
    process.stderr.write(`bench: ${name}...\n`);
    results[name] = await runIsolated(name);
  }

  const report = {
    date: new Date().toISOString(),
    machine: machine(),
    versions: versions(),
    seconds: Math.round((performance.now() - started) / 1000),
    results,
  };
  const { cpu, cores, node } = report.machine;
  const out = [`Machine: ${cpu}, ${cores} cores, Node.js ${node}. ${report.seconds} s.`, ''];
  for (const name of modules) for (const section of results[name].sections) out.push(table(section), '');
  const goals = modules.flatMap((name) => results[name].goals);
  out.push('| | goal | measured | target |', '|---|---|--:|--:|', ...goals.map(goalLine));
  console.log(out.join('\n'));
  if (!chosen.length) writeFileSync(RESULTS, `${JSON.stringify(report, null, 2)}\n`);
}
