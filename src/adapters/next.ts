/**
 * `loyalty-partner-sdk/next`: a webhook receiver as a Next.js App Router route handler or a
 * `pages/api` handler. The `next` package is not imported; both are typed structurally.
 *
 * @packageDocumentation
 */
import type { ServerResponse } from 'node:http';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { answerNodeRequest } from './node-exchange.js';
import type { NodeRequest } from './read-node-body.js';
import { answerWebRequest } from './web-exchange.js';

export type { AdapterOptions } from './adapter-options.js';
export { ADAPTER_DEFAULTS } from './adapter-options.js';
export type { NodeRequest } from './read-node-body.js';

const CONSUMED_HINT =
  'Next.js parsed the body before pagesApiHandler got it, so the signature cannot be verified: ' +
  'add `export const config = { api: { bodyParser: false } }` to this API route';

/**
 * An App Router `POST` route handler for a receiver. Runs on the Node.js and the Edge runtime.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for something that is not a receiver or a
 * `maxBodyBytes` that is not a positive whole number
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
  const { maxBodyBytes } = normalizeAdapterOptions('nextRouteHandler', receiver, options);
  return (request) => answerWebRequest(receiver, request, maxBodyBytes);
}

/**
 * A `pages/api` handler for a receiver. Next.js parses API route bodies by default, which loses
 * the raw bytes: the route must export `config = { api: { bodyParser: false } }`. Without it the
 * handler answers 500 `RAW_BODY_UNAVAILABLE` at once, saying so.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for something that is not a receiver or a
 * `maxBodyBytes` that is not a positive whole number
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
  const { maxBodyBytes } = normalizeAdapterOptions('pagesApiHandler', receiver, options);
  return (req, res) => answerNodeRequest(receiver, req, res, { maxBodyBytes, consumedHint: CONSUMED_HINT });
}
