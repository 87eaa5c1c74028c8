/**
 * `loyalty-partner-sdk/signature`, Web build (edge runtimes, browsers; no `node:*`). Web Crypto is
 * asynchronous, so `verifySignatureAsync` and `signPayloadAsync` are the functions here; the
 * synchronous ones are Node crypto's (the `node` export condition) and here say so when called.
 *
 * @packageDocumentation
 */
import type { SignPayload } from './sign.js';
import type { VerifySignature } from './verify-options.js';

export type { RawBody } from './bytes.js';

export { SignatureVerificationError } from './errors.js';

export { parseSignatureHeader } from './parse-header.js';
export type { Secrets } from './secrets.js';

export { signPayloadAsync } from './sign-async.js';
export { verifySignatureAsync } from './verify-async.js';
export type { VerifiedSignature, VerifyOptions } from './verify-options.js';
export { DEFAULT_TOLERANCE_SECONDS } from './verify-options.js';

/**
 * A synchronous function of the Node build called where only Web Crypto exists: fails at once, before
 * reading any input, naming the asynchronous one that works here (never a slower home-made HMAC).
 */
function nodeOnly(name: 'signPayload' | 'verifySignature'): never {
  throw new TypeError(
    `${name} needs Node.js crypto (a synchronous HMAC), which this runtime lacks; use ${name}Async, which runs on Web Crypto`,
  );
}

/**
 * Signs a raw body synchronously: available under Node.js, Bun and Deno (the `node` export
 * condition). In this Web build (Workers, Next.js edge, browsers) it throws a `TypeError`
 * pointing at `signPayloadAsync`, since Web Crypto can only sign asynchronously.
 *
 * @example
 * ```ts
 * import { signPayload, signPayloadAsync } from 'loyalty-partner-sdk/signature';
 * const body = JSON.stringify({ eventType: 'InvoiceEarned' });
 * const header = typeof process === 'object' ? signPayload(body, 'whsec_example') : await signPayloadAsync(body, 'whsec_example');
 * ```
 */
export const signPayload: SignPayload = () => nodeOnly('signPayload');

/**
 * Verifies an `X-Signature` header synchronously: available under Node.js, Bun and Deno (the
 * `node` export condition). In this Web build it throws a `TypeError` pointing at
 * `verifySignatureAsync`, which has the same rules and results and runs on Web Crypto.
 *
 * @example
 * ```ts
 * import { verifySignatureAsync } from 'loyalty-partner-sdk/signature';
 * export async function POST(request: Request): Promise<Response> {
 *   const body = new Uint8Array(await request.arrayBuffer());
 *   await verifySignatureAsync(body, request.headers.get('x-signature'), 'whsec_example');
 *   return new Response(null, { status: 204 });
 * }
 * ```
 */
export const verifySignature: VerifySignature = () => nodeOnly('verifySignature');
