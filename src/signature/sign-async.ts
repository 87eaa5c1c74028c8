import { type SignPayloadAsync, signWithAsync } from './sign.js';
import { webCryptoHmac } from './web-crypto-hmac.js';

/**
 * Signs a raw body with Web Crypto: the same header as `signPayload`
 * (`t=<unix seconds>,v1=<hex>[,v1=...]`, one `v1` per secret in order), for runtimes whose only
 * HMAC is asynchronous (Workers, Next.js edge, browsers, kiosk webviews). Rejects with a
 * `TypeError` for an empty or blank secret or a body that is not a string or bytes, and a
 * `RangeError` for a timestamp that is not whole unix seconds >= 0.
 *
 * @example
 * ```ts
 * import { signPayloadAsync } from 'loyalty-partner-sdk/signature';
 * const body = JSON.stringify({ eventType: 'InvoiceEarned' });
 * const header = await signPayloadAsync(body, 'whsec_example', { timestamp: 1763630000 });
 * ```
 */
export const signPayloadAsync: SignPayloadAsync = (rawBody, secret, options) =>
  signWithAsync(webCryptoHmac, rawBody, secret, options);
