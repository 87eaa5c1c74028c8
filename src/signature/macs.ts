import { BODY_TYPE_MESSAGE, toBytes } from './bytes.js';
import { SignatureVerificationError } from './errors.js';
import type { SyncHmac } from './hmac.js';
import { readSecrets } from './secrets.js';

/** An HMAC as signing and verification use it: `M` is a MAC, or a promise of one. */
export interface MacEngine<Text, M> {
  mac(secret: string, t: string, body: Uint8Array | Text): M;
  text?: SyncHmac<Text>['text'];
}

/**
 * The MAC of `<t>.` followed by the body under each secret, in order: the half that signing and
 * verification share, so both refuse the same inputs the same way. A missing or empty secret is
 * `no_secret` (an empty HMAC key would let anyone sign); a body that is not a string, bytes or an
 * ArrayBuffer (typically JSON a framework already parsed) is `no_match`, since nothing can match.
 */
export function macsOf<Text, M>(
  hmac: MacEngine<Text, M>,
  rawBody: unknown,
  t: string,
  secrets: unknown,
): M[] {
  const keys = readSecrets(secrets);
  if (!keys) throw new SignatureVerificationError('no_secret', 'No signing secret configured');
  const body = toBytes(rawBody, hmac.text);
  // `=== undefined`, not falsy: an empty string is a valid body, and Node's text hook returns it as is.
  if (body === undefined) throw new SignatureVerificationError('no_match', BODY_TYPE_MESSAGE);
  return keys.map((key) => hmac.mac(key, t, body));
}
