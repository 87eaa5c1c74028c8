import { MAX_TIMER_MS } from '../internal/timers.js';
import { integerFlag, requiredFlag } from './args.js';
import { UsageError } from './exit-codes.js';
import { type CliIo, readSecrets } from './io.js';

/** An absolute http(s) receiver URL; one with credentials is refused without repeating them (CI logs). */
function receiverUrlFlag(command: string, value: string): string {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url !== undefined && (url.username !== '' || url.password !== '')) {
    throw new UsageError(
      `${command}: the receiver URL carries a user name or password; give it without them (the service sends none)`,
    );
  }
  if (url?.protocol === 'http:' || url?.protocol === 'https:') return url.href;
  // Something that is not a URL may still hold a secret: shown only when it cannot be userinfo.
  const shown = value.includes('@') ? 'the receiver URL' : JSON.stringify(value);
  throw new UsageError(`${command}: ${shown} is not an http(s) URL`);
}

/** Milliseconds from `min` to 2^31 - 1: a longer timer fires at once, so every case would time out. */
export function timerFlag(name: string, value: string | undefined, min: number): number | undefined {
  const ms = integerFlag(name, value, 'milliseconds');
  if (ms !== undefined && (ms < min || ms > MAX_TIMER_MS))
    throw new UsageError(`--${name} must be from ${min} to ${MAX_TIMER_MS} milliseconds, not ${value}`);
  return ms;
}

/**
 * What `check-receiver` and `trigger` send with: the receiver `url`, the one secret of `--secret-file`
 * (a second one is refused: which one is expected?), `--tenant` and `--timeout-ms`.
 */
export async function receiverFlags(
  command: string,
  io: CliIo,
  url: string,
  values: { readonly 'secret-file'?: string; readonly tenant?: string; readonly 'timeout-ms'?: string },
): Promise<{ url: string; secret: string; tenantId: string; timeoutMs: number }> {
  const href = receiverUrlFlag(command, url);
  const timeoutMs = timerFlag('timeout-ms', values['timeout-ms'], 1) ?? 10_000;
  const path = requiredFlag(command, '--secret-file <path>', values['secret-file']);
  const [secret, ...more] = await readSecrets(io, { secretFile: path });
  if (more.length > 0 || secret === undefined)
    throw new UsageError(`${path} holds more than one line: put exactly one signing secret in it`);
  return { url: href, secret, tenantId: values.tenant ?? 'tenant-check', timeoutMs };
}
