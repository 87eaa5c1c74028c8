import { codeOf } from '../../internal/code-of.js';
import { CLIENT_ENV, clientFromEnv } from '../client-env.js';
import type { CliIo } from '../io.js';
import { redactUrl } from '../ops/redact.js';
import { type CheckLine, clockLine, ok, warn } from './report.js';

/** Checks the service `CLIENT_ENV` names (secret, clock, `GET /connection`); signs and prints no secret. */
export async function checkService(io: CliIo): Promise<CheckLine[]> {
  const baseUrl = io.env[CLIENT_ENV.baseUrl] ?? '';
  const lines: CheckLine[] = [];
  const secretSet = Boolean(io.env[CLIENT_ENV.signingSecret]?.trim());
  lines.push(
    secretSet
      ? ok('signing secret', `${CLIENT_ENV.signingSecret} is set`)
      : warn(
          'signing secret',
          `${CLIENT_ENV.signingSecret} is not set`,
          `set ${CLIENT_ENV.signingSecret} to the signing secret issued at activation`,
        ),
  );

  const before = Date.now();
  try {
    const answer = await fetch(baseUrl, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
    const date = answer.headers.get('date');
    const offset = date ? Date.parse(date) - (before + Date.now()) / 2 : Number.NaN;
    if (Number.isNaN(offset))
      lines.push(warn('service clock', 'the service sent no Date header', 'nothing to change here'));
    else
      lines.push(
        clockLine(
          'service clock',
          "the service's",
          offset,
          "synchronise this machine's clock (NTP): signatures older than 300 s are refused",
          // The header has whole seconds: a second either way is noise.
          ' (to the second)',
        ),
      );
  } catch (err) {
    lines.push(
      warn(
        'service',
        `cannot reach ${redactUrl(baseUrl)} (${(err as Error).name})`,
        `check ${CLIENT_ENV.baseUrl} and that this machine can reach it`,
      ),
    );
    return lines;
  }

  if (!secretSet) return lines;
  const client = await clientFromEnv(io, { 'no-retry': true });
  try {
    const result = await client.checkConnection();
    lines.push(ok('GET /connection', `${result.status}: the API key is accepted`));
  } catch (err) {
    lines.push(
      warn(
        'GET /connection',
        `refused: ${codeOf(err) || (err as Error).name}`,
        `check ${CLIENT_ENV.apiKey} (the key issued at activation) and that the merchant activated the integration`,
      ),
    );
  } finally {
    await client.close();
  }
  return lines;
}
