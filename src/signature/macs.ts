import { toBytes } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { MacEngine } from './hmac.js';
import { readSecrets } from './secrets.js';

/** What to throw for unusable secrets or a body of the wrong type: each caller has its own error. */
export type Refuse = (problem: 'no_secret' | 'no_match', message: string) => never;

/** Verification's refusal: a `SignatureVerificationError`, which a receiver answers 401 with. */
export const refuseToVerify: Refuse = (problem, message) => {
  throw new SignatureVerificationError(problem, message);
};

/**
 * The MAC of `<t>.` and the body under each secret, shared by signing and verification so both
 * refuse the same inputs (`refuse`): no usable secret is `no_secret` (an empty key lets anyone
 * sign); a body that is not text or bytes (JSON a framework parsed) is `no_match`.
 */
export function macsOf<Text, M>(
  hmac: MacEngine<Text, M>,
  rawBody: unknown,
  t: string,
  secrets: unknown,
  refuse: Refuse,
): M[] {
  const keys = readSecrets(secrets);
  if (!keys) refuse('no_secret', 'No signing secret configured (empty and blank ones are refused)');
  const body = toBytes(rawBody, hmac.text);
  // `=== undefined`, not falsy: an empty string is a valid body, and Node's text hook returns it as is.
  if (body === undefined) refuse('no_match', 'rawBody must be a string, Uint8Array or ArrayBuffer');
  return keys.map((key) => hmac.mac(key, t, body));
}
