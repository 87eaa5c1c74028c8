import { BODY_TYPE_MESSAGE, toBytes } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { SyncHmac } from './hmac.js';
import { readSecrets } from './secrets.js';

/** An HMAC as signing and verification use it: `M` is a MAC, or a promise of one. */
export interface MacEngine<Text, M> {
  mac(secret: string, t: string, body: Uint8Array | Text): M;
  text?: SyncHmac<Text>['text'];
}

/** What to throw for unusable secrets or a body of the wrong type: each caller has its own error. */
export type Refuse = (problem: 'no_secret' | 'no_match', message: string) => never;

/** Verification's refusal: a `SignatureVerificationError`, which a receiver answers 401 with. */
export const refuseToVerify: Refuse = (problem, message) => {
  throw new SignatureVerificationError(problem, message);
};

/** Said when no usable secret was given. */
export const NO_SECRET_MESSAGE = 'No signing secret configured (empty and blank ones are refused)';

/**
 * The MAC of `<t>.` followed by the body under each secret, in order: the half that signing and
 * verification share, so both refuse the same inputs, each with its own error (`refuse`). A
 * missing, empty or blank secret is `no_secret` (an empty HMAC key would let anyone sign); a body
 * that is not a string, bytes or an ArrayBuffer (typically JSON a framework already parsed) is
 * `no_match`, since nothing can match.
 */
export function macsOf<Text, M>(
  hmac: MacEngine<Text, M>,
  rawBody: unknown,
  t: string,
  secrets: unknown,
  refuse: Refuse,
): M[] {
  const keys = readSecrets(secrets);
  if (!keys) refuse('no_secret', NO_SECRET_MESSAGE);
  const body = toBytes(rawBody, hmac.text);
  // `=== undefined`, not falsy: an empty string is a valid body, and Node's text hook returns it as is.
  if (body === undefined) refuse('no_match', BODY_TYPE_MESSAGE);
  return keys.map((key) => hmac.mac(key, t, body));
}
