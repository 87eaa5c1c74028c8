import { PassThrough, Readable } from 'node:stream';
import type { ExitCode } from '../../src/cli/exit-codes.js';
import { runCli } from '../../src/cli/run-cli.js';

/** Runs the CLI in-process with captured output, as a user's shell would see it. */
export async function cli(
  argv: string[],
  options: { env?: Record<string, string>; stdin?: string | Uint8Array; tty?: boolean } = {},
): Promise<{ code: ExitCode; stdout: string; stderr: string }> {
  const stdout = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const stderr = Object.assign(new PassThrough(), { isTTY: options.tty ?? false });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  const code = await runCli(argv, {
    stdout,
    stderr,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env ?? {},
  });
  return { code, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') };
}
