/**
 * One signing secret, or several while a secret is being rotated (verification accepts a match
 * under any of them; signing emits one `v1` per secret, in order). A secret is used as the exact
 * UTF-8 bytes of the string: no trimming, no decoding of a `whsec_` prefix.
 *
 * @example
 * ```ts
 * import type { Secrets } from 'loyalty-partner-sdk/signature';
 * const during: Secrets = ['whsec_new', 'whsec_old']; // newest first while rotating
 * const after: Secrets = 'whsec_new';
 * ```
 */
export type Secrets = string | readonly string[];

const NOT_BLANK = /\S/;
// A first character that is visible ASCII settles it without the regex (the common case, and this
// runs on every verification).
const notBlank = (secret: string): boolean => {
  const first = secret.charCodeAt(0);
  return (first > 32 && first < 127) || NOT_BLANK.test(secret);
};

/**
 * A private copy of the secrets (a list the caller changes later cannot affect a verification under
 * way), or `undefined` when there is no usable one: an empty list, a value that is not a string
 * (holes of a sparse array included), or an empty or blank one (an empty HMAC key lets anyone sign).
 */
export function readSecrets(secrets: unknown): string[] | undefined {
  if (typeof secrets === 'string') return notBlank(secrets) ? [secrets] : undefined;
  const list: unknown[] = Array.isArray(secrets) ? Array.from(secrets) : [];
  return list.length && list.every((secret) => typeof secret === 'string' && notBlank(secret))
    ? (list as string[])
    : undefined;
}
