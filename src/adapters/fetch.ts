/**
 * `loyalty-partner-sdk/fetch`: a webhook receiver as a `(Request) => Promise<Response>` function,
 * the shape Hono, Bun, Deno and Cloudflare Workers serve. Free of `node:*` modules.
 *
 * @packageDocumentation
 */
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { answerWebRequest } from './web-exchange.js';

export type { AdapterOptions } from './adapter-options.js';
export { ADAPTER_DEFAULTS } from './adapter-options.js';

/**
 * A fetch handler for a receiver: reads the `Request`'s raw bytes (up to `maxBodyBytes`, else
 * 413), answers any method but POST with 405, and returns the receiver's answer as a `Response`.
 * Pass it the untouched `Request`: one whose body was already read is answered 500
 * `RAW_BODY_UNAVAILABLE`.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for something that is not a receiver or a
 * `maxBodyBytes` that is not a positive whole number
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { fetchHandler } from 'loyalty-partner-sdk/fetch';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: 'whsec_example', handlers: {} });
 * const onWebhook = fetchHandler(receiver);
 * const app = new Hono();
 * app.post('/loyalty/webhooks', (c) => onWebhook(c.req.raw));
 * export default app; // Bun, Deno and Workers serve app.fetch
 * ```
 */
export function fetchHandler(
  receiver: Receiver,
  options?: AdapterOptions,
): (request: Request) => Promise<Response> {
  const { maxBodyBytes } = normalizeAdapterOptions('fetchHandler', receiver, options);
  return (request) => answerWebRequest(receiver, request, maxBodyBytes);
}
