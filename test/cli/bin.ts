import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built bin, as `npx loyalty-partner` runs it. `npm test` builds before the suite runs. */
export const BIN = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

export interface BinOptions {
  /** The whole environment of the child besides PATH: nothing leaks in from the test's shell. */
  env?: Record<string, string>;
  stdin?: string;
}

export interface BinRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `node dist/cli.js ...`, its output so far, and a way to wait for a line of it. */
export interface BinProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Resolves with the first match of `pattern` in stdout; rejects if the process ends first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  readonly exited: Promise<BinRun>;
}

/** Starts the built CLI with `args`; the test ends it (or waits for it to end on its own). */
export function startBin(args: string[], options: BinOptions = {}): BinProcess {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build first (npx tsup; npm test does it)`);
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { PATH: process.env.PATH ?? '', ...options.env },
  });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const check of watchers) check();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<BinRun>((resolve) => {
    child.on('close', (code, signal) => {
      for (const check of watchers) check();
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
  child.stdin.end(options.stdin ?? '');
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const match = out.match(pattern);
          if (match) {
            watchers.delete(check);
            resolve(match);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            watchers.delete(check);
            reject(new Error(`the CLI ended before printing ${pattern}:\n${out}\n${err}`));
          }
        };
        watchers.add(check);
        check();
      }),
  };
}

/** Runs the built CLI to its end, asynchronously, so an emulator in this process can answer it. */
export function runBin(args: string[], options: BinOptions = {}): Promise<BinRun> {
  return startBin(args, options).exited;
}
