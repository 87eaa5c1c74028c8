/**
 * Cold import time of each entry point, as a user's process pays it at start-up: a fresh
 * `node -e "import('loyalty-partner-sdk/x')"` in a consumer project whose node_modules links the
 * package (so the `exports` map and its `node` conditions resolve as for an installed copy),
 * minus a bare `node -e ""`. Entries take turns run by run, and each figure is a median.
 * Express and Hono, imported the same way, give the scale: what a receiver's framework costs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { goal, median } from './harness.mjs';

/** Every import path of the package, the root first. */
export const ENTRIES = [
  'loyalty-partner-sdk',
  'loyalty-partner-sdk/signature',
  'loyalty-partner-sdk/webhooks',
  'loyalty-partner-sdk/node',
  'loyalty-partner-sdk/express',
  'loyalty-partner-sdk/next',
  'loyalty-partner-sdk/fetch',
  'loyalty-partner-sdk/outbox',
  'loyalty-partner-sdk/testing',
];

/** Frameworks imported beside the entries, for scale (no goal). */
const REFERENCES = ['express', 'hono'];

/** Fresh processes per entry; the median of these is reported. */
const RUNS = 9;

function consumerProject() {
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-bench-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(
    fileURLToPath(new URL('..', import.meta.url)),
    join(dir, 'node_modules/loyalty-partner-sdk'),
    'dir',
  );
  for (const name of REFERENCES) {
    symlinkSync(
      fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url)),
      join(dir, 'node_modules', name),
      'dir',
    );
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-consumer', private: true }));
  return dir;
}

function coldStartMs(cwd, source) {
  const started = process.hrtime.bigint();
  const child = spawnSync(process.execPath, ['-e', source], { cwd, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (child.status !== 0) throw new Error(`${source} failed: ${child.stderr}`);
  return ms;
}

/** Measures every entry and the references; the root entry carries issue 17's goal. */
export async function run() {
  const cwd = consumerProject();
  const names = [...ENTRIES, ...REFERENCES];
  try {
    const programs = ['', ...names.map((entry) => `import(${JSON.stringify(entry)})`)];
    const times = programs.map(() => []);
    coldStartMs(cwd, programs[1]); // fills the OS file cache, which a user's second start has too
    for (let run = 0; run < RUNS; run++) {
      for (const [i, program] of programs.entries()) times[i].push(coldStartMs(cwd, program));
    }
    const [baseline, ...entries] = times.map(median);
    return {
      sections: [
        {
          title: `cold import, median of ${RUNS} fresh processes, minus bare node (${baseline.toFixed(1)} ms)`,
          unit: 'ms',
          rows: names.map((name, i) => ({ name, value: entries[i] - baseline })),
        },
      ],
      goals: [
        goal('cold import of the root entry over bare node', entries[0] - baseline, 60, {
          atMost: true,
          unit: ' ms',
        }),
      ],
      ratios: {
        baselineMs: baseline,
        ...Object.fromEntries(names.map((name, i) => [name, entries[i] - baseline])),
      },
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
