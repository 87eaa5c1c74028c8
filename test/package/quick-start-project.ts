import { execFile, execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import { packageRoot } from './consumer-project.js';

/** The blocks of README.md marked `<!-- quick-start: <name> -->`, by name, exactly as written. */
export function quickStarts(): Record<string, string> {
  const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');
  const blocks: Record<string, string> = {};
  for (const [, name, body] of readme.matchAll(/^<!-- quick-start: ([a-z]+) -->\n```ts\n([\s\S]*?)^```$/gm))
    blocks[name as string] = body as string;
  return blocks;
}

/** The packages the README tells users to install next to the SDK, plus the SDK's own dependencies. */
const LINKED = ['undici', 'zod', 'uuid', 'csv-parse', 'pg', 'express', 'vitest'];

/**
 * A fresh project outside the repository with the package installed from `npm pack` (only what
 * the tarball ships, as a user gets it; no network) and the packages the quick starts install
 * linked from this repository's node_modules.
 */
export interface QuickStartProject {
  readonly dir: string;
  /**
   * Writes a quick start as the user saves it (`<name>.ts`) and, unless `strip` is false, as Node
   * runs it (`<name>.js`, the types stripped as `node --strip-types` or tsx would). Returns the file Node runs.
   */
  write(name: string, source: string, options?: { strip?: boolean }): string;
  /** Runs a program of the project with Node, arguments and an environment; resolves with its output. */
  run(
    file: string,
    env: Record<string, string>,
    args?: string[],
  ): Promise<{ stdout: string; stderr: string }>;
  /** Starts a long-running program; resolves once its stdout shows `ready`. */
  start(
    file: string,
    env: Record<string, string>,
    ready: RegExp,
  ): Promise<{ output: () => string; stop: () => void }>;
  remove(): void;
}

export function createQuickStartProject(): QuickStartProject {
  if (!existsSync(join(packageRoot, 'dist/index.node.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-quick-start-'));
  const installed = join(dir, 'node_modules', 'loyalty-partner-sdk');
  mkdirSync(installed, { recursive: true });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: packageRoot, stdio: 'ignore' });
  const tarball = readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', installed, '--strip-components=1']);
  for (const name of LINKED)
    symlinkSync(join(packageRoot, 'node_modules', name), join(dir, 'node_modules', name), 'dir');
  // Made as the README says: `npm init -y` (npm 11 writes "type": "commonjs"), then the one extra
  // step it names for samples with top-level await.
  execFileSync('npm', ['init', '-y'], { cwd: dir, stdio: 'ignore', env: { ...process.env, HOME: dir } });
  execFileSync('npm', ['pkg', 'set', 'type=module'], {
    cwd: dir,
    stdio: 'ignore',
    env: { ...process.env, HOME: dir },
  });
  const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', HOME: dir, ...extra });

  return {
    dir,
    write(name, source, { strip = true } = {}) {
      writeFileSync(join(dir, `${name}.ts`), source);
      if (!strip) return `${name}.ts`;
      const { code } = transformSync(source, { loader: 'ts', format: 'esm', target: 'node20' });
      // `.js`, not `.mjs`: the project's "type" decides how Node reads it, as for `npx tsx` or
      // `node <file>.ts`.
      writeFileSync(join(dir, `${name}.js`), code);
      return `${name}.js`;
    },
    run: (file, extra, args = []) =>
      promisify(execFile)(process.execPath, [file, ...args], { cwd: dir, env: env(extra), timeout: 90_000 }),
    start(file, extra, ready) {
      const child = spawn(process.execPath, [file], { cwd: dir, env: env(extra) });
      let output = '';
      return new Promise((resolve, reject) => {
        const onData = (chunk: Buffer) => {
          output += chunk.toString();
          if (ready.test(output)) resolve({ output: () => output, stop: () => child.kill() });
        };
        child.stdout.on('data', onData);
        child.stderr.on('data', (chunk: Buffer) => {
          output += chunk.toString();
        });
        child.on('exit', (code) =>
          reject(new Error(`${file} exited (${code}) before it was ready:\n${output}`)),
        );
      });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
