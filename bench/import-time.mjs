/**
 * Cold import time of each entry point, as a user's process pays it at start-up: in a fresh
 * process of a consumer project whose node_modules links the package (so the `exports` map and
 * its `node` conditions resolve as for an installed copy), the time from just before
 * `await import('loyalty-partner-sdk/x')` until it resolves. That is the cost over bare Node,
 * read inside the process: timing whole processes from outside and subtracting a bare
 * `node -e ""` adds the noise of two process start-ups (±20 ms on a small VM) to a figure of a
 * few milliseconds. Entries take turns run by run, and each figure is a median.
 * Express and Hono, imported the same way, give the scale: what a receiver's framework costs; an
 * empty one-file ESM package gives the floor: Node's own loader start, which no package goes under.
 * The goals are ratios to Express measured in the same run, so that a loaded or slow machine moves
 * both sides alike: the root at most 0.7x Express, `/webhooks` at most 0.35x, and each receiver
 * adapter within 5 ms of `/webhooks` (an adapter is a thin translation, it must not load more).
 * `LOYALTY_BENCH_PACKAGE=<dir>` measures another build of the package (a directory holding its
 * package.json and dist/), for an A/B of two builds on the same machine.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIRST_WAVE } from '../scripts/entry-points.mjs';
import { goal, median } from './harness.mjs';

/** The import paths timed, the root first: the first wave, then later entries. */
export const ENTRIES = [
  ...FIRST_WAVE,
  'loyalty-partner-sdk/fastify',
  'loyalty-partner-sdk/koa',
  'loyalty-partner-sdk/outbox',
  'loyalty-partner-sdk/testing',
];

/** Frameworks imported beside the entries, for scale (no goal). */
const REFERENCES = ['express', 'hono'];

/** A package of one empty ESM file: what importing any package costs at the least (no goal). */
const EMPTY = 'an-empty-esm-package';

/** The package measured: this repository, or the build named by LOYALTY_BENCH_PACKAGE. */
const PACKAGE = process.env.LOYALTY_BENCH_PACKAGE ?? fileURLToPath(new URL('..', import.meta.url));

/** Fresh processes per entry; the median of these is reported. */
const RUNS = 15;

/** The receiver adapters, each held to at most 5 ms over `/webhooks`. */
const ADAPTERS = ['node', 'express', 'next', 'fetch', 'fastify', 'koa'].map(
  (name) => `loyalty-partner-sdk/${name}`,
);

function consumerProject() {
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-bench-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PACKAGE, join(dir, 'node_modules/loyalty-partner-sdk'), 'dir');
  for (const name of REFERENCES) {
    symlinkSync(
      fileURLToPath(new URL(`../node_modules/${name}`, import.meta.url)),
      join(dir, 'node_modules', name),
      'dir',
    );
  }
  const empty = join(dir, 'node_modules', EMPTY);
  mkdirSync(empty);
  writeFileSync(
    join(empty, 'package.json'),
    JSON.stringify({ name: EMPTY, type: 'module', exports: './index.js' }),
  );
  writeFileSync(join(empty, 'index.js'), 'export {};\n');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-consumer', private: true }));
  return dir;
}

/** Milliseconds from `import()` to its resolution, in a fresh process. */
function importMs(cwd, specifier) {
  const source = `const t = performance.now(); await import(${JSON.stringify(specifier)}); process.stdout.write(String(performance.now() - t));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], { cwd, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`import(${specifier}) failed: ${child.stderr}`);
  return Number(child.stdout);
}

/** Measures every entry and the references; the goals compare the root and `/webhooks` to Express. */
export async function run() {
  const cwd = consumerProject();
  const names = [...ENTRIES, ...REFERENCES, EMPTY];
  try {
    const times = names.map(() => []);
    for (const name of names) importMs(cwd, name); // fills the OS file cache, as a user's second start has
    for (let run = 0; run < RUNS; run++) {
      for (const [i, name] of names.entries()) times[i].push(importMs(cwd, name));
    }
    const ms = Object.fromEntries(names.map((name, i) => [name, median(times[i])]));
    const webhooks = ms['loyalty-partner-sdk/webhooks'];
    const express = ms.express;
    const slowestAdapter = ADAPTERS.reduce((a, b) => (ms[a] >= ms[b] ? a : b));
    return {
      sections: [
        {
          title: `cold import over bare node: median of ${RUNS} fresh processes, timed inside each`,
          unit: 'ms',
          rows: names.map((name) => ({
            name: name === EMPTY ? 'an empty ESM package' : name,
            value: ms[name],
          })),
        },
      ],
      goals: [
        goal('cold import of the root entry vs Express', ms['loyalty-partner-sdk'] / express, 0.7, {
          atMost: true,
        }),
        goal('cold import of /webhooks vs Express', webhooks / express, 0.35, { atMost: true }),
        goal(
          `slowest adapter (${slowestAdapter.slice('loyalty-partner-sdk/'.length)}) over /webhooks`,
          ms[slowestAdapter] - webhooks,
          5,
          { atMost: true, unit: ' ms' },
        ),
      ],
      ratios: ms,
    };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}
