import { createVerifyAsync } from './verify.js';
import type { VerifySignatureAsync } from './verify-options.js';
import { webCryptoHmac } from './web-crypto-hmac.js';

/**
 * Verifies an `X-Signature` header with Web Crypto (`globalThis.crypto.subtle`), which every
 * runtime has: Node 20+, Deno, Bun, Workers, Next.js edge, browsers. Same rules and results as
 * `verifySignature`; on edge runtimes and in browsers, where Web Crypto is the only HMAC and
 * it is asynchronous, this is the verifier. Under several secrets the MACs are computed
 * concurrently.
 *
 * Takes the body exactly as received (before any JSON parsing), the `X-Signature` header value,
 * and the tenant's signing secret (or a list while rotating). Resolves to the authenticated
 * timestamp and the index of the secret that matched; rejects with a
 * {@link SignatureVerificationError} for every request that must get a 401, and nothing else.
 *
 * @example
 * ```ts
 * import { SignatureVerificationError, verifySignatureAsync } from 'loyalty-partner-sdk/signature';
 *
 * export async function POST(request: Request): Promise<Response> {
 *   const rawBody = new Uint8Array(await request.arrayBuffer());
 *   try {
 *     await verifySignatureAsync(rawBody, request.headers.get('x-signature'), ['whsec_new', 'whsec_old']);
 *   } catch (err) {
 *     if (err instanceof SignatureVerificationError) return Response.json({ code: err.code }, { status: 401 });
 *     throw err;
 *   }
 *   return new Response(null, { status: 204 });
 * }
 * ```
 */
export const verifySignatureAsync: VerifySignatureAsync = createVerifyAsync(webCryptoHmac);
