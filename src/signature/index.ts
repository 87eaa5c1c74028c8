/**
 * `loyalty-partner-sdk/signature`, Web build: for edge runtimes and browsers, free of `node:*`.
 * The synchronous functions use a portable pure-JS HMAC-SHA256; `verifySignatureAsync` uses Web
 * Crypto. Under Node the `node` export condition serves `platform-node/signature.ts` instead,
 * with the same names and Node crypto behind the synchronous functions.
 *
 * @packageDocumentation
 */
import { pureJsHmac } from './sha256.js';
import { type SignPayload, signWith } from './sign.js';
import { createVerify, type VerifySignature } from './verify.js';

export type { RawBody } from './bytes.js';
export type { SignatureVerificationCode, SignatureVerificationReason } from './errors.js';
export { SignatureVerificationError } from './errors.js';
export type { ParsedSignatureHeader } from './parse-header.js';
export { parseSignatureHeader } from './parse-header.js';
export type { Secrets } from './secrets.js';
export type { SignOptions, SignPayload } from './sign.js';
export type { VerifiedSignature, VerifyOptions, VerifySignature, VerifySignatureAsync } from './verify.js';
export { DEFAULT_TOLERANCE_SECONDS } from './verify.js';
export { verifySignatureAsync } from './verify-async.js';

/**
 * Signs a raw body: HMAC-SHA256 over the bytes `<t>.` followed by the body, one `v1` per secret
 * in the order given. Use it for requests to the service and for test deliveries.
 *
 * Returns the `X-Signature` value, `t=<unix seconds>,v1=<64 lowercase hex>[,v1=...]`. Refuses
 * secrets and bodies exactly as verification does (a {@link SignatureVerificationError}
 * `no_secret` or `no_match`), and throws a RangeError for a timestamp that is not whole unix
 * seconds >= 0.
 *
 * @example
 * ```ts
 * import { signPayload } from 'loyalty-partner-sdk/signature';
 * const body = JSON.stringify({ eventType: 'InvoiceEarned' });
 * const headers = { 'content-type': 'application/json', 'x-signature': signPayload(body, 'whsec_example') };
 * ```
 */
export const signPayload: SignPayload = (rawBody, secret, options) =>
  signWith(pureJsHmac, rawBody, secret, options);

/**
 * Verifies an `X-Signature` header synchronously: parses it, compares the HMAC of `<t>.` + body
 * in constant time against every `v1` under every secret, and only then checks that `t` is
 * within the tolerance of now. This Web build computes the HMAC in pure JavaScript; prefer
 * `verifySignatureAsync` on edge runtimes. Under Node the `node` condition binds Node crypto.
 *
 * Takes the body exactly as received (before any JSON parsing), the `X-Signature` header value,
 * and the tenant's signing secret (or a list while rotating). Returns the authenticated
 * timestamp and the index of the secret that matched; throws a
 * {@link SignatureVerificationError} for every request that must get a 401, and nothing else
 * whatever the header, body or secrets hold.
 *
 * @example
 * ```ts
 * import { signPayload, verifySignature } from 'loyalty-partner-sdk/signature';
 * const body = '{"eventType":"LoyaltyRuleChanged"}';
 * const header = signPayload(body, 'whsec_example', { timestamp: 1763630000 });
 * const { secretIndex } = verifySignature(body, header, 'whsec_example', { now: 1763630010 });
 * console.log(secretIndex); // 0
 * ```
 */
export const verifySignature: VerifySignature = createVerify(pureJsHmac);
