/**
 * `loyalty-partner-sdk/express`: a webhook receiver as Express middleware. Express is not
 * imported, not even for its types: the middleware is typed structurally, so it fits Express 4
 * and 5 and loads nothing for users of other frameworks.
 *
 * @packageDocumentation
 */
import type { ServerResponse } from 'node:http';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { answerNodeRequest } from './node-exchange.js';
import type { NodeRequest } from './read-node-body.js';

export type { AdapterOptions } from './adapter-options.js';
export { ADAPTER_DEFAULTS } from './adapter-options.js';
export type { NodeRequest } from './read-node-body.js';

/**
 * Express middleware, typed by the parts of `req`, `res` and `next` it uses.
 *
 * @example
 * ```ts
 * import type { WebhookMiddleware } from 'loyalty-partner-sdk/express';
 * const logged = (inner: WebhookMiddleware): WebhookMiddleware => (req, res, next) => {
 *   console.info('delivery from', req.headers['x-tenantid']);
 *   inner(req, res, next);
 * };
 * ```
 */
export type WebhookMiddleware = (
  req: NodeRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const CONSUMED_HINT =
  'A body parser read the request before expressWebhook and kept no raw bytes, so the signature cannot be ' +
  "verified. Mount the webhook route before express.json(), or use express.raw({ type: 'application/json' }) " +
  'on it, or keep the bytes with express.json({ verify: (req, _res, buf) => { req.rawBody = buf } })';

/**
 * Express middleware for a receiver. It reads the raw body itself, so mount it on its route
 * before any JSON body parser. When a parser in front has already read the body, it uses the raw
 * bytes the parser preserved (`req.rawBody` from a `verify` callback, or the `Buffer` of
 * `express.raw()`); with none it answers 500 `RAW_BODY_UNAVAILABLE` at once, naming the fix. It
 * never waits on a consumed stream and never verifies re-serialised JSON.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for something that is not a receiver or a
 * `maxBodyBytes` that is not a positive whole number
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { expressWebhook } from 'loyalty-partner-sdk/express';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * const app = express();
 * app.post('/loyalty/webhooks', expressWebhook(receiver)); // before app.use(express.json())
 * app.use(express.json());
 * ```
 */
export function expressWebhook(receiver: Receiver, options?: AdapterOptions): WebhookMiddleware {
  const { maxBodyBytes } = normalizeAdapterOptions('expressWebhook', receiver, options);
  return (req, res, next) => {
    answerNodeRequest(receiver, req, res, { maxBodyBytes, consumedHint: CONSUMED_HINT }).catch(next);
  };
}
