import { createReadStream } from 'node:fs';
import { integerFlag, type ParsedCommandArgs, valueFlags } from './args.js';
import { onFile, UsageError } from './exit-codes.js';

/** The process surface a command touches, injectable so tests can drive commands in-process. */
export interface CliIo {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stdin: NodeJS.ReadableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Ends a long-running command (`emulate`) as SIGINT or SIGTERM would; without it, they do. */
  readonly shutdown?: AbortSignal;
}

/**
 * Colour only on a terminal with `NO_COLOR` unset (https://no-color.org); the pass and fail marks
 * too: a log file, a pipe or a CI console that may not render `✓` gets `PASS`/`FAIL`.
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
    pass: enabled ? green('✓') : 'PASS',
    fail: enabled ? red('✗') : 'FAIL',
  };
}

export type Style = ReturnType<typeof createStyle>;

/** How many bytes `send --payload`, `sign` and `verify` read at most by default (`--max-bytes`): 1 MiB. */
export const INPUT_LIMIT_BYTES = 1024 * 1024;

/** How many bytes a `--secret-file` may hold: 64 KiB, room for hundreds of secrets. */
export const SECRET_FILE_LIMIT_BYTES = 64 * 1024;

/** A file, or stdin for `-`, as its exact bytes, refused past `limit` (`/dev/zero` must not fill memory). */
export async function readInput(
  io: CliIo,
  path: string,
  limit = INPUT_LIMIT_BYTES,
  flag = '--max-bytes',
): Promise<Uint8Array> {
  const name = path === '-' ? 'standard input' : path;
  const chunks: Buffer[] = [];
  let total = 0;
  await onFile(name, async () => {
    const source = path === '-' ? io.stdin : createReadStream(path);
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      total += bytes.length;
      if (total > limit)
        throw new UsageError(
          `${name} is larger than ${limit.toLocaleString('en-US')} bytes: ${flag === '' ? 'is it the right file?' : `pass ${flag} <bytes> to read more`}`,
        );
      chunks.push(bytes);
    }
  });
  return Buffer.concat(chunks);
}

/** The JSON of `--payload <file | ->` (`send`, `trigger`), or a usage error saying where it breaks. */
export async function readPayload(io: CliIo, path: string, maxBytes = INPUT_LIMIT_BYTES): Promise<unknown> {
  const text = Buffer.from(await readInput(io, path, maxBytes)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `--payload ${path === '-' ? '(stdin)' : path} is not valid JSON: ${(err as Error).message}`,
    );
  }
}

/** The flags of `sign` and `verify`: where the secrets are, and how much of the body to read. */
export const SIGNING_FLAGS = valueFlags('secret-env', 'secret-file', 'max-bytes');
export const SIGNING_HELP = `  --secret-env <NAME>   environment variable holding the secret (default LOYALTY_SIGNING_SECRET)
  --secret-file <path>  file with one secret per line (several while rotating; at most 64 KiB;
                        a space, tab or carriage return around a secret is refused)
  --max-bytes <n>       read at most this many bytes of the body (default 1048576, 1 MiB)`;

/** The body (a file, or `-` for standard input) and the secrets `sign` and `verify` work on. */
export async function readSigningInput(
  io: CliIo,
  values: Partial<ParsedCommandArgs<typeof SIGNING_FLAGS>['values']>,
  path = '-',
): Promise<{ body: Uint8Array; secrets: string[] }> {
  const maxBytes = integerFlag('max-bytes', values['max-bytes'], 'bytes') ?? INPUT_LIMIT_BYTES;
  const body = await readInput(io, path, maxBytes);
  const secrets = await readSecrets(io, {
    secretEnv: values['secret-env'],
    secretFile: values['secret-file'],
  });
  return { body, secrets };
}

/**
 * The signing secret(s), from `--secret-file` (one per line, for rotation) or an environment variable:
 * never from argv (`ps` and shell history keep it), never printed; whitespace around one is refused.
 */
export async function readSecrets(
  io: CliIo,
  options: { secretFile?: string | undefined; secretEnv?: string | undefined },
): Promise<string[]> {
  if (options.secretFile !== undefined) {
    const file = options.secretFile;
    const text = Buffer.from(await readInput(io, file, SECRET_FILE_LIMIT_BYTES, '')).toString('utf8');
    const lines = text.split(/\r?\n/);
    if (lines.at(-1) === '') lines.pop();
    for (const [index, line] of lines.entries()) {
      // One final line break is what editors leave; a second one is whitespace around the secret.
      // A line of spaces is no secret: signing or verifying under it would accept what anyone can sign.
      const problem =
        line.length === 0
          ? 'is empty: put one secret per line, with no empty lines'
          : !/\S/.test(line)
            ? 'is blank (whitespace only): a secret must have other characters; remove the line'
            : line !== line.trim()
              ? 'has whitespace before or after the secret (a space, a tab or a carriage return): remove it, it would change every signature'
              : undefined;
      if (problem) throw new UsageError(`line ${index + 1} of ${file} ${problem}`);
    }
    if (lines.length === 0) throw new UsageError(`${file} holds no secret (one per line)`);
    return lines;
  }
  const name = options.secretEnv ?? 'LOYALTY_SIGNING_SECRET';
  const secret = io.env[name];
  if (!secret?.trim())
    throw new UsageError(`set ${name} to the signing secret, or pass --secret-file <path>`);
  return [secret];
}

/** `1 row`, `2 rows`: counts in messages read as sentences. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
