import { readFile } from 'node:fs/promises';
import { UsageError } from './exit-codes.js';

/** The process surface a command touches, injectable so tests can drive commands in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * Ends a long-running command (`emulate`) cleanly, as SIGINT or SIGTERM would. In-process
   * callers pass one; without it the command listens for those signals itself.
   */
  readonly shutdown?: AbortSignal;
}

/**
 * Prints with colour only where it helps: a terminal, and `NO_COLOR` unset (https://no-color.org).
 * The pass and fail marks follow the same switch: a log file, a pipe or a CI console that may not
 * render `✓` gets the ASCII words instead.
 */
export function createStyle(io: CliIo, stream: 'stdout' | 'stderr' = 'stdout') {
  const enabled = Boolean(io[stream].isTTY) && !io.env.NO_COLOR;
  const paint = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  const green = paint(32, 39);
  const red = paint(31, 39);
  return {
    enabled,
    bold: paint(1, 22),
    dim: paint(2, 22),
    red,
    green,
    yellow: paint(33, 39),
    cyan: paint(36, 39),
    /** The mark of a step that behaved as expected: `✓` in colour, `PASS` without. */
    pass: enabled ? green('✓') : 'PASS',
    /** The mark of a step that did not: `✗` in colour, `FAIL` without. */
    fail: enabled ? red('✗') : 'FAIL',
  };
}

/** The style helpers of `createStyle`. */
export type Style = ReturnType<typeof createStyle>;

/** Reads a file, or standard input for `-`, as the exact bytes (never decoded: signatures cover bytes). */
export async function readInput(io: CliIo, path: string): Promise<Uint8Array> {
  if (path === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin)
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    return Buffer.concat(chunks);
  }
  try {
    return await readFile(path);
  } catch (err) {
    throw new UsageError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/**
 * The signing secret(s), from `--secret-file` (one per line, for rotation) or an environment
 * variable. Secrets are never taken on the command line, where `ps` and shell history keep them,
 * and never printed.
 */
export async function readSecrets(
  io: CliIo,
  options: { secretFile?: string | undefined; secretEnv?: string | undefined },
): Promise<string[]> {
  if (options.secretFile !== undefined) {
    const text = Buffer.from(await readInput(io, options.secretFile)).toString('utf8');
    const lines = text.split(/\r?\n/);
    // A line of spaces is no secret: signing or verifying under it would accept what anyone can sign.
    const blank = lines.findIndex((line) => line.length > 0 && !/\S/.test(line));
    if (blank >= 0) {
      throw new UsageError(
        `line ${blank + 1} of ${options.secretFile} is blank (whitespace only): a secret must have other characters; remove the line`,
      );
    }
    const secrets = lines.filter((line) => line.length > 0);
    if (secrets.length === 0) throw new UsageError(`${options.secretFile} holds no secret (one per line)`);
    return secrets;
  }
  const name = options.secretEnv ?? 'LOYALTY_SIGNING_SECRET';
  const secret = io.env[name];
  if (!secret?.trim())
    throw new UsageError(`set ${name} to the signing secret, or pass --secret-file <path>`);
  return [secret];
}

/** `1 row`, `2 rows`: counts in messages read as sentences. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
