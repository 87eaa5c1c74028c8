import type { RawBody } from './bytes.js';
import type { AsyncHmac, SyncHmac } from './hmac.js';
import { macsOf, type Refuse } from './macs.js';
import type { Secrets } from './secrets.js';
import { nowSeconds } from './verify-options.js';

/** Options of `signPayload`. */
export interface SignOptions {
  /**
   * The `t` to sign, whole unix seconds >= 0.
   * @default Math.floor(Date.now() / 1000)
   */
  timestamp?: number;
}

/** The shape of `signPayload` in both builds. */
export type SignPayload = (rawBody: RawBody, secret: Secrets, options?: SignOptions) => string;

/** The shape of `signPayloadAsync`, the signer for runtimes whose only HMAC is Web Crypto's. */
export type SignPayloadAsync = (rawBody: RawBody, secret: Secrets, options?: SignOptions) => Promise<string>;

/**
 * Signing's refusal of its arguments, as jose refuses a bad key: a `TypeError` for a secret or a
 * body it cannot use, a `RangeError` for a timestamp, each naming the argument. Not a
 * `SignatureVerificationError`: nothing was verified, and no receiver should answer 401 for a
 * signer's mistake.
 */
const refuseArguments: Refuse = (problem, message) => {
  throw new TypeError(`Cannot sign: ${problem === 'no_secret' ? 'secret' : 'rawBody'}: ${message}`);
};

function timestampOf(options: SignOptions | undefined): string {
  const t = options?.timestamp ?? nowSeconds();
  if (!(Number.isSafeInteger(t) && t >= 0)) {
    throw new RangeError('Cannot sign: options.timestamp must be whole unix seconds >= 0');
  }
  return `${t}`;
}

// Each MAC is already the hex of a `v1` (see SyncHmac).
const headerOf = (t: string, macs: string[]): string =>
  macs.reduce((header, mac) => `${header},v1=${mac}`, `t=${t}`);

/**
 * Signing with a synchronous HMAC; the public `signPayload` of each build binds one. The secrets
 * and the body are refused as verification refuses them (a `TypeError`), and a timestamp that
 * is not whole unix seconds >= 0 (a `RangeError`), each naming the argument.
 */
export function signWith<Text>(
  hmac: SyncHmac<Text>,
  rawBody: unknown,
  secret: unknown,
  options?: SignOptions,
): string {
  const t = timestampOf(options);
  return headerOf(t, macsOf(hmac, rawBody, t, secret, refuseArguments));
}

/** Signing with an asynchronous HMAC (Web Crypto): the same checks, the same header. */
export async function signWithAsync(
  hmac: AsyncHmac,
  rawBody: unknown,
  secret: unknown,
  options?: SignOptions,
): Promise<string> {
  const t = timestampOf(options);
  return headerOf(t, await Promise.all(macsOf(hmac, rawBody, t, secret, refuseArguments)));
}
