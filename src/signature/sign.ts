import { BODY_TYPE_MESSAGE, toBytes, toHex } from './bytes.js';
import type { SyncHmac } from './hmac.js';
import { readSecrets } from './secrets.js';

/** Options of `signPayload`. */
export interface SignOptions {
  /**
   * The `t` to sign, whole unix seconds >= 0.
   * @default Math.floor(Date.now() / 1000)
   */
  timestamp?: number;
}

/** Signing with a synchronous HMAC; the public `signPayload` of each build binds one. */
export function signWith<Text>(
  hmac: SyncHmac<Text>,
  rawBody: unknown,
  secret: unknown,
  options?: SignOptions,
): string {
  // Signing works on the caller's own values, not on a request: plain TypeError and RangeError.
  const secrets = readSecrets(secret);
  if (!secrets) throw new TypeError('signPayload needs non-empty secrets');
  const t = options?.timestamp ?? Math.floor(Date.now() / 1000);
  if (!(Number.isSafeInteger(t) && t >= 0)) throw new RangeError('timestamp must be whole unix seconds');
  const body = toBytes(rawBody, hmac.text);
  if (!body) throw new TypeError(BODY_TYPE_MESSAGE);
  return secrets.reduce((header, key) => `${header},v1=${toHex(hmac.mac(key, `${t}`, body))}`, `t=${t}`);
}
