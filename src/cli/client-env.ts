import type { ClientHooks } from '../client/hooks.js';
import type { RetryOptions } from '../client/options.js';
import { LoyaltyValidationError } from '../contract/index.js';
import { LoyaltyClient } from '../platform-node/index.js';
import { UsageError } from './exit-codes.js';
import { type CliIo, readSecrets } from './io.js';

/**
 * The environment variables `send` and `backfill` read, by client option. Credentials come from
 * the environment (or a file), never from the command line, where `ps` and shell history keep them.
 */
export const CLIENT_ENV = {
  baseUrl: 'LOYALTY_BASE_URL',
  apiKey: 'LOYALTY_API_KEY',
  signingSecret: 'LOYALTY_SIGNING_SECRET',
} as const;

/** What a command adds to the client the environment describes. */
export interface ClientEnvOptions {
  /** `--secret-file`: one secret per line, instead of `LOYALTY_SIGNING_SECRET`. */
  secretFile?: string | undefined;
  retry?: RetryOptions | false;
  hooks?: ClientHooks;
}

function required(io: CliIo, name: string, what: string): string {
  const value = io.env[name];
  if (!value) throw new UsageError(`set ${name} to ${what}`);
  return value;
}

/**
 * A `LoyaltyClient` from `LOYALTY_BASE_URL`, `LOYALTY_API_KEY` and `LOYALTY_SIGNING_SECRET`. A
 * missing or invalid setting is a `UsageError` naming the variable, never quoting its value.
 */
export async function clientFromEnv(io: CliIo, options: ClientEnvOptions = {}): Promise<LoyaltyClient> {
  const baseUrl = required(
    io,
    CLIENT_ENV.baseUrl,
    "the service's address (for a local one, the URL `loyalty-partner emulate` prints)",
  );
  const apiKey = required(io, CLIENT_ENV.apiKey, 'the API key issued at activation');
  const signingSecret = await readSecrets(io, {
    secretFile: options.secretFile,
    secretEnv: CLIENT_ENV.signingSecret,
  });
  try {
    return new LoyaltyClient({
      baseUrl,
      apiKey,
      signingSecret,
      ...(options.retry !== undefined && { retry: options.retry }),
      ...(options.hooks && { hooks: options.hooks }),
    });
  } catch (err) {
    if (!(err instanceof LoyaltyValidationError)) throw err;
    const names: Record<string, string> = CLIENT_ENV;
    const problems = err.issues.map((issue) => {
      const option = issue.path.split('.')[0] ?? '';
      return `${names[option] ?? issue.path} ${issue.message}`;
    });
    throw new UsageError(problems.join('; ') || err.message);
  }
}
