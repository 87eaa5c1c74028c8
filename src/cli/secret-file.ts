import { UsageError } from './exit-codes.js';
import { type CliIo, readInput } from './io.js';

/**
 * Reads one signing secret from a file. One final newline (LF or CRLF), as editors and
 * `echo > file` leave it, is dropped; any other whitespace around the secret is refused rather
 * than trimmed, because a receiver that has the secret without it would then reject everything,
 * and a secret with it is not what the partner portal shows. The secret is never printed.
 */
export async function readSecretFile(io: CliIo, path: string): Promise<string> {
  const text = Buffer.from(await readInput(io, path)).toString('utf8');
  const secret = text.replace(/\r?\n$/, '');
  if (secret.length === 0) throw new UsageError(`${path} is empty: put the signing secret in it`);
  if (/[\r\n]/.test(secret)) {
    throw new UsageError(`${path} holds more than one line: put exactly one signing secret in it`);
  }
  if (secret.trim() !== secret) {
    throw new UsageError(
      `${path}: the secret starts or ends with whitespace (spaces, tabs or a second newline); remove it, only one final newline is allowed`,
    );
  }
  return secret;
}
