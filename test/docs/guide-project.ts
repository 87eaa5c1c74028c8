import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Guide } from './guide-samples.js';

const exec = promisify(execFile);

/** The repository root: the package as `npm pack` sees it (needs `npm run build`). */
export const packageRoot = resolve(import.meta.dirname, '../..');

/**
 * One npm cache for every project of every run: each guide's packages come from the registry
 * once, then from the cache (`prefer-offline`). `npx tsx` is cached there as well.
 */
const npmCache = join(tmpdir(), 'loyalty-guide-samples-npm-cache');

const npmEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? tmpdir(),
  npm_config_cache: npmCache,
  npm_config_prefer_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
  // npx asks before it installs a package it has not got (tsx); the reader answers yes.
  npm_config_yes: 'true',
});

/** `npm pack` of the built package, once per run, into a directory of its own; tsx fetched. */
export async function packSdk(): Promise<{ tarball: string; remove: () => void }> {
  if (!existsSync(join(packageRoot, 'dist/index.node.js')))
    throw new Error('dist/ is missing: run `npm run build` first (`npm run test:slow` does)');
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-guide-pack-'));
  await exec('npm', ['pack', '--silent', '--pack-destination', dir], { cwd: packageRoot, env: npmEnv() });
  const name = readdirSync(dir).find((file) => file.endsWith('.tgz'));
  if (!name) throw new Error('npm pack wrote no tarball');
  // tsx into npx's cache once, before the guides' projects ask for it side by side.
  await exec('npx', ['tsx', '--version'], { cwd: dir, env: npmEnv() });
  return { tarball: join(dir, name), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Started {
  output(): string;
  /** Ends the program and everything it started (npx, tsx and Node are one process group). */
  stop(): Promise<void>;
}

/**
 * A project made as a guide says: `npm init -y` (npm 11 writes `"type": "commonjs"`), then the
 * packages the guide names installed in one `npm install` (and one `npm install -D`), the SDK
 * from the packed tarball. Samples are written under the names the guide gives and run with
 * `npx tsx <file>`, as the guides say.
 */
export interface GuideProject {
  readonly dir: string;
  write(file: string, source: string): void;
  /** Runs `npx <args>` to its end (a program, `tsx`, `vitest run`); never rejects. */
  run(args: readonly string[], env: Record<string, string>, command?: string): Promise<Ran>;
  /** Starts `npx <args>`; resolves once `ready` says so (a port that accepts, a line). */
  start(args: readonly string[], env: Record<string, string>, ready: ReadyWhen): Promise<Started>;
  remove(): void;
}

export type ReadyWhen = { port: number } | { line: RegExp };

export async function createGuideProject(guide: Guide, tarball: string): Promise<GuideProject> {
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-guide-'));
  const npm = (args: string[]) => exec('npm', args, { cwd: dir, env: npmEnv(), timeout: 600_000 });
  await npm(['init', '-y']);
  const sdk = (name: string) => (name === 'loyalty-partner-sdk' ? tarball : name);
  if (guide.dependencies.length > 0) await npm(['install', ...guide.dependencies.map(sdk)]);
  if (guide.devDependencies.length > 0) await npm(['install', '-D', ...guide.devDependencies.map(sdk)]);
  const env = (extra: Record<string, string>) => ({ ...npmEnv(), ...extra });

  return {
    dir,
    write(file, source) {
      mkdirSync(dirname(join(dir, file)), { recursive: true });
      writeFileSync(join(dir, file), source);
    },
    run(args, extra, command = 'npx') {
      return new Promise((done) => {
        execFile(
          command,
          [...args],
          { cwd: dir, env: env(extra), timeout: 180_000, killSignal: 'SIGKILL', maxBuffer: 16 << 20 },
          (err, stdout, stderr) => {
            const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
            done({ code, stdout, stderr });
          },
        );
      });
    },
    start(args, extra, ready) {
      const child = spawn('npx', [...args], { cwd: dir, env: env(extra), detached: true });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const started: Started = { output: () => output, stop: () => stopGroup(child) };
      return new Promise((resolve, reject) => {
        let settled = false;
        child.on('exit', (code) => {
          if (settled) return;
          settled = true;
          reject(new Error(`npx ${args.join(' ')} exited (${code}) before it was ready:\n${output}`));
        });
        const poll = async () => {
          for (const deadline = Date.now() + 90_000; Date.now() < deadline && !settled; ) {
            const isReady = 'port' in ready ? await accepts(ready.port) : ready.line.test(output);
            if (isReady) {
              settled = true;
              return resolve(started);
            }
            await new Promise((r) => setTimeout(r, 100));
          }
          if (settled) return;
          settled = true;
          await stopGroup(child);
          reject(new Error(`npx ${args.join(' ')} was not ready within 90 s:\n${output}`));
        };
        void poll();
      });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
    return Promise.resolve();
  const group = -(child.pid as number);
  return new Promise((resolve) => {
    // A program that does not end on SIGTERM within 15 s is killed.
    const kill = setTimeout(() => signal(group, 'SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    if (!signal(group, 'SIGTERM')) {
      clearTimeout(kill);
      resolve();
    }
  });
}

function signal(group: number, name: NodeJS.Signals): boolean {
  try {
    process.kill(group, name);
    return true;
  } catch {
    return false;
  }
}
