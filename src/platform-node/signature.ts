/**
 * `loyalty-partner-sdk/signature` under the `node` export condition: the same names as the Web
 * build (`src/signature/index.ts`), built from the same core, with the synchronous functions
 * bound to Node crypto. `verifySignatureAsync` and `signPayloadAsync` stay on Web Crypto, which
 * Node 20 also has.
 *
 * @module loyalty-partner-sdk/signature
 */
import { type SignPayload, signWith } from '../signature/sign.js';
import { createVerify } from '../signature/verify.js';
import type { VerifySignature } from '../signature/verify-options.js';
import { nodeHmac } from './node-hmac.js';

// Every name of the Web build; the two synchronous functions below shadow its Web Crypto-less
// stand-ins, as `platform-node/index.ts` does for the root.
export * from '../signature/index.js';

/**
 * Signs a raw body: HMAC-SHA256 (Node crypto) over the bytes `<t>.` followed by the body, one
 * `v1` per secret in the order given.
 *
 * Returns the `X-Signature` value, `t=<unix seconds>,v1=<64 lowercase hex>[,v1=...]`. Throws a
 * `TypeError` naming the argument for an empty or blank secret (as verification refuses them) or
 * a body that is not a string or bytes, and a `RangeError` for a timestamp that is not whole
 * unix seconds >= 0; never a `SignatureVerificationError`, since nothing was verified.
 *
 * @example
 * ```ts
 * import { signPayload } from 'loyalty-partner-sdk/signature';
 * const body = Buffer.from(JSON.stringify({ eventType: 'InvoiceEarned' }));
 * const header = signPayload(body, ['whsec_new', 'whsec_old'], { timestamp: 1763630000 });
 * ```
 */
export const signPayload: SignPayload = (rawBody, secret, options) =>
  signWith(nodeHmac, rawBody, secret, options);

/**
 * Verifies an `X-Signature` header synchronously with Node crypto: parses it, compares the HMAC
 * of `<t>.` + body in constant time against every `v1` (exactly 64 hex digits, either case) under
 * every secret, and only then checks that `t` is within the tolerance of now. Gives the same
 * result as `verifySignatureAsync` on every input.
 *
 * Takes the body exactly as received (a `Buffer` read from the request is ideal), the
 * `X-Signature` header value, and the tenant's signing secret (or a list while rotating).
 * Returns the authenticated timestamp and the index of the secret that matched; throws a
 * {@link SignatureVerificationError} for every request that must get a 401, and nothing else
 * whatever the header, body or secrets hold.
 *
 * @example
 * ```ts
 * import { SignatureVerificationError, verifySignature } from 'loyalty-partner-sdk/signature';
 * import express from 'express';
 *
 * const app = express();
 * app.post('/loyalty/webhooks', express.raw({ type: '*\/*' }), (req, res) => {
 *   try {
 *     verifySignature(req.body as Buffer, req.get('x-signature'), ['whsec_new', 'whsec_old']);
 *   } catch (err) {
 *     if (err instanceof SignatureVerificationError) return void res.status(401).json({ code: err.code });
 *     throw err;
 *   }
 *   res.sendStatus(204);
 * });
 * ```
 */
export const verifySignature: VerifySignature = createVerify(nodeHmac);
