import { LoyaltyValidationError } from '../contract/index.js';
import { LoyaltyClient } from '../platform-node/index.js';
import { type ParsedCommandArgs, switchFlags, valueFlags } from './args.js';
import { UsageError } from './exit-codes.js';
import { type CliIo, readSecrets } from './io.js';

/** The environment variables `send` and `backfill` read, by client option (never credentials in argv). */
export const CLIENT_ENV = {
  baseUrl: 'LOYALTY_BASE_URL',
  apiKey: 'LOYALTY_API_KEY',
  signingSecret: 'LOYALTY_SIGNING_SECRET',
} as const;

/** The flags of the commands that send with the client (`send`, `backfill`). */
export const CLIENT_FLAGS = { ...valueFlags('secret-file'), ...switchFlags('no-retry') };

type ClientFlags = Partial<ParsedCommandArgs<typeof CLIENT_FLAGS>['values']>;

function required(io: CliIo, name: string, what: string): string {
  const value = io.env[name];
  if (!value) throw new UsageError(`set ${name} to ${what}`);
  return value;
}

/** A `LoyaltyClient` from `CLIENT_ENV`: a bad setting is a `UsageError` naming the variable only. */
export async function clientFromEnv(io: CliIo, flags: ClientFlags = {}): Promise<LoyaltyClient> {
  const baseUrl = required(
    io,
    CLIENT_ENV.baseUrl,
    "the service's address (for a local one, the URL `loyalty-partner emulate` prints)",
  );
  const apiKey = required(io, CLIENT_ENV.apiKey, 'the API key issued at activation');
  const signingSecret = await readSecrets(io, {
    secretFile: flags['secret-file'],
    secretEnv: CLIENT_ENV.signingSecret,
  });
  try {
    return new LoyaltyClient({
      baseUrl,
      apiKey,
      signingSecret,
      ...(flags['no-retry'] && { retry: false }),
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
