/**
 * `loyalty-partner-sdk/next`: a webhook receiver as a Next.js App Router route handler or a
 * `pages/api` handler. The `next` package is not imported; both are typed structurally.
 *
 * @module loyalty-partner-sdk/next
 */
import type { ServerResponse } from 'node:http';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { answerNodeRequest } from './node-exchange.js';
import type { NodeRequest } from './read-node-body.js';
import { webHandler } from './web-exchange.js';

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';
export type { NodeRequest } from './read-node-body.js';

const PAGES_HINT = {
  framework: 'Next.js pages/api',
  fix: 'Next.js parsed the body: add `export const config = { api: { bodyParser: false } }` to this API route.',
};
const APP_HINT = {
  framework: 'Next.js App Router',
  fix:
    "Export the handler as the route's POST and read nothing before it: no request.json(), " +
    'request.text() or request.formData() in the route or in middleware (pass request.clone() to ' +
    'code that must read the body).',
};

/**
 * An App Router `POST` route handler for a receiver. Runs on the Node.js runtime (the default)
 * and on the Edge runtime, which Next.js deprecates; with `cacheComponents` on (the Next.js 16
 * default of `create-next-app`) a route may not export `runtime` at all, and needs no config.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
 *
 * @example
 * ```ts
 * // app/api/loyalty/webhooks/route.ts
 * import { nextRouteHandler } from 'loyalty-partner-sdk/next';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * export const POST = nextRouteHandler(receiver);
 * ```
 */
export function nextRouteHandler(
  receiver: Receiver,
  options?: AdapterOptions,
): (request: Request) => Promise<Response> {
  return webHandler('nextRouteHandler', receiver, options, APP_HINT);
}

/**
 * A `pages/api` handler for a receiver. Next.js parses API route bodies by default, which loses
 * the raw bytes: the route must export `config = { api: { bodyParser: false } }`. Without it the
 * handler answers 500 `RAW_BODY_UNAVAILABLE` at once, saying so.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
 *
 * @example
 * ```ts
 * // pages/api/loyalty/webhooks.ts
 * import { pagesApiHandler } from 'loyalty-partner-sdk/next';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * export const config = { api: { bodyParser: false } };
 * export default pagesApiHandler(receiver);
 * ```
 */
export function pagesApiHandler(
  receiver: Receiver,
  options?: AdapterOptions,
): (req: NodeRequest, res: ServerResponse) => Promise<void> {
  const settings = normalizeAdapterOptions('pagesApiHandler', receiver, options, PAGES_HINT);
  return (req, res) => answerNodeRequest(receiver, req, res, settings);
}
