import { MAX_TIMER_MS } from '../testing/receiver-exchange.js';
import { integerFlag } from './args.js';
import { UsageError } from './exit-codes.js';

/**
 * The receiver URL of `check-receiver` and `trigger`: absolute http(s), without credentials, which
 * are refused without being repeated (the password would land in CI logs).
 */
export function receiverUrlFlag(command: string, value: string): string {
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
