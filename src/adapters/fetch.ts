/**
 * `loyalty-partner-sdk/fetch`: a webhook receiver as a `(Request) => Promise<Response>` function,
 * the shape Hono, Bun, Deno and Cloudflare Workers serve. Free of `node:*` modules.
 *
 * @module loyalty-partner-sdk/fetch
 */
import type { Receiver } from '../webhooks/receiver-types.js';
import type { AdapterOptions } from './adapter-options.js';
import { webHandler } from './web-exchange.js';

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';

const HINT = {
  framework: 'fetch handler (Hono, Bun, Deno, Workers)',
  fix:
    'Pass the untouched Request: in Hono c.req.raw, with no c.req.json(), c.req.text() or body ' +
    'validator before it; in Bun, Deno and Workers the request your fetch handler got.',
};

/**
 * A fetch handler for a receiver: reads the `Request`'s raw bytes (up to `maxBodyBytes`, else
 * 413), answers any method but POST with 405, and returns the receiver's answer as a `Response`.
 * Pass it the untouched `Request`: one whose body was already read is answered 500
 * `RAW_BODY_UNAVAILABLE`, reported to `onError` and logged once (per logger).
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
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
  return webHandler('fetchHandler', receiver, options, HINT);
}
