/**
 * `loyalty-partner-sdk/signature` under the `node` export condition: the same names as the Web
 * build (`src/signature/index.ts`), built from the same core, with the synchronous functions
 * bound to Node crypto. `verifySignatureAsync` stays on Web Crypto, which Node 20 also has.
 *
 * @packageDocumentation
 */
import type { RawBody } from '../signature/bytes.js';
import type { Secrets } from '../signature/secrets.js';
import { type SignOptions, signWith } from '../signature/sign.js';
import { type VerifiedSignature, type VerifyOptions, verifyWith } from '../signature/verify.js';
import { nodeHmac } from './node-hmac.js';

export type { RawBody } from '../signature/bytes.js';
export type { SignatureVerificationCode, SignatureVerificationReason } from '../signature/errors.js';
export { SignatureVerificationError } from '../signature/errors.js';
export type { ParsedSignatureHeader } from '../signature/parse-header.js';
export { parseSignatureHeader } from '../signature/parse-header.js';
export type { Secrets } from '../signature/secrets.js';
export type { SignOptions } from '../signature/sign.js';
export type { VerifiedSignature, VerifyOptions } from '../signature/verify.js';
export { DEFAULT_TOLERANCE_SECONDS } from '../signature/verify.js';
export { verifySignatureAsync } from '../signature/verify-async.js';

/**
 * Signs a raw body: HMAC-SHA256 (Node crypto) over the bytes `<t>.` followed by the body, one
 * `v1` per secret in the order given.
 *
 * @returns the `X-Signature` value, `t=<unix seconds>,v1=<64 lowercase hex>[,v1=...]`
 * @throws {TypeError} without a non-empty secret, or for a body that is not bytes or a string
 * @throws {RangeError} for a timestamp that is not whole unix seconds >= 0
 *
 * @example
 * ```ts
 * import { signPayload } from 'loyalty-partner-sdk/signature';
 * const body = Buffer.from(JSON.stringify({ eventType: 'InvoiceEarned' }));
 * const header = signPayload(body, ['whsec_new', 'whsec_old'], { timestamp: 1763630000 });
 * ```
 */
export function signPayload(rawBody: RawBody, secret: Secrets, options?: SignOptions): string {
  return signWith(nodeHmac, rawBody, secret, options);
}

/**
 * Verifies an `X-Signature` header synchronously with Node crypto: parses it, compares the HMAC
 * of `<t>.` + body with `timingSafeEqual` against every `v1` under every secret, and only then
 * checks that `t` is within the tolerance of now.
 *
 * @param rawBody - the body exactly as received (a `Buffer` from the request stream is ideal)
 * @param header - the `X-Signature` header value
 * @param secrets - the tenant's signing secret, or a list while rotating
 * @returns the authenticated timestamp and the index of the secret that matched
 * @throws {SignatureVerificationError} for every request that must get a 401 (never anything
 * else for any header, body or secrets value)
 *
 * @example
 * ```ts
 * import { SignatureVerificationError, verifySignature } from 'loyalty-partner-sdk/signature';
 * import express from 'express';
 *
 * const app = express();
 * app.post('/loyalty/webhooks', express.raw({ type: '*\/*' }), (req, res) => {
 *   try {
 *     verifySignature(req.body as Buffer, req.get('x-signature'), process.env.LOYALTY_SECRET ?? '');
 *   } catch (err) {
 *     if (err instanceof SignatureVerificationError) return void res.status(401).json({ code: err.code });
 *     throw err;
 *   }
 *   res.sendStatus(204);
 * });
 * ```
 */
export function verifySignature(
  rawBody: RawBody,
  header: string | null | undefined,
  secrets: Secrets,
  options?: VerifyOptions,
): VerifiedSignature {
  return verifyWith(nodeHmac, rawBody, header, secrets, options);
}
