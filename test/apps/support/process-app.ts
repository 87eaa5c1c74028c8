import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RunningApp } from './app-conformance.js';

export const root = resolve(import.meta.dirname, '../../..');

/**
 * A fresh app directory outside the repository, holding the fixtures and a node_modules where
 * `loyalty-partner-sdk` is the built package (dist/ through its exports map), as once installed.
 */
export async function appDirectory(prefix: string): Promise<string> {
  if (!existsSync(join(root, 'dist/fetch.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  await cp(join(root, 'test/apps/fixtures'), dir, { recursive: true });
  await mkdir(join(dir, 'node_modules'));
  await symlink(root, join(dir, 'node_modules', 'loyalty-partner-sdk'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: prefix, private: true, type: 'module' }));
  return dir;
}

/** The binary an npm package installed in node_modules/.bin, or a loud failure naming it. */
export function binary(name: string, npmPackage: string): string {
  const path = join(root, 'node_modules/.bin', name);
  if (!existsSync(path)) {
    throw new Error(
      `${name} is not installed (${path} is missing): \`npm ci\` installs the ${npmPackage} npm package; ` +
        'this runtime cannot be tested until its install succeeds',
    );
  }
  return path;
}

/**
 * Starts a server process and resolves once it prints its origin (matched by `listening`);
 * rejects, with what the process printed, if it exits first or takes longer than `timeoutMs`.
 */
export function startProcess(
  command: string,
  args: string[],
  options: {
    cwd: string;
    env?: Record<string, string>;
    listening: RegExp;
    timeoutMs?: number;
    cleanup?: string;
  },
): Promise<RunningApp> {
  const child: ChildProcess = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const stop = async () => {
    if (child.exitCode === null && child.pid) {
      try {
        process.kill(-child.pid, 'SIGTERM'); // the runtime's own children (workerd) too
      } catch {
        // already gone
      }
      await new Promise((done) => child.once('close', done));
    }
    if (options.cleanup) await rm(options.cleanup, { recursive: true, force: true });
  };
  return new Promise((resolveApp, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} did not start within ${options.timeoutMs ?? 60_000} ms:\n${output}`));
    }, options.timeoutMs ?? 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const origin = output.match(options.listening)?.[1];
      if (origin) {
        clearTimeout(timer);
        resolveApp({ origin, output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited with ${code} before listening:\n${output}`));
    });
  });
}
