import { UsageError } from './exit-codes.js';
import { type CliIo, readSecrets } from './io.js';

/**
 * The one signing secret of a `--secret-file`, for commands that sign as the service does with
 * one tenant's secret (`check-receiver`, `trigger`). The file is read as every command reads it
 * (`readSecrets`: at most 64 KiB, one final line break dropped, whitespace around a secret
 * refused); a second secret is refused too, since which one the receiver expects is unknown.
 */
export async function readSecretFile(io: CliIo, path: string): Promise<string> {
  const [secret, ...more] = await readSecrets(io, { secretFile: path });
  if (more.length > 0 || secret === undefined) {
    throw new UsageError(`${path} holds more than one line: put exactly one signing secret in it`);
  }
  return secret;
}
