import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';

/** A child Node process whose output the test reads line by line as it comes. */
export interface LineChild {
  readonly child: ChildProcess;
  /** Settles once the process exited and its output was read to the end. */
  readonly closed: Promise<[number | null, NodeJS.Signals | null]>;
  lines(): string[];
  stderr(): string;
}

/** Starts `node script ...args` with stdin a pipe (for commands) and its output collected. */
export function startLineChild(script: string, args: readonly string[]): LineChild {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  const output = collectOutput(child);
  return {
    child,
    closed: once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>,
    lines: () => output.stdout().split('\n').filter(Boolean),
    stderr: output.stderr,
  };
}

/** What a child started with piped stdout and stderr has written to each so far. */
export function collectOutput(child: ChildProcess): { stdout(): string; stderr(): string } {
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

const exited = ({ child }: LineChild) => child.exitCode !== null || child.signalCode !== null;

/** Waits until `seen(lines)` holds, or the child exited (its output read to the end): whether it held. */
export async function linesSeen(child: LineChild, seen: (lines: string[]) => boolean): Promise<boolean> {
  while (!seen(child.lines())) {
    if (exited(child)) {
      await child.closed;
      return seen(child.lines());
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** Waits until `seen(lines)` holds; throws with the child's stderr if it exited first. */
export async function untilLines(
  child: LineChild,
  what: string,
  seen: (lines: string[]) => boolean,
): Promise<void> {
  if (!(await linesSeen(child, seen))) throw new Error(`child exited before ${what}: ${child.stderr()}`);
}

/** The child's first line starting with `prefix`, once it printed one. */
export async function lineOf(child: LineChild, prefix: string): Promise<string> {
  const find = (lines: string[]) => lines.find((line) => line.startsWith(prefix));
  await untilLines(child, prefix, (lines) => find(lines) !== undefined);
  return find(child.lines())!;
}
