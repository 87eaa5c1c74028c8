/**
 * `loyalty-partner-sdk/node`: a webhook receiver as a `node:http` request listener.
 *
 * @module loyalty-partner-sdk/node
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { answerNodeRequest } from './node-exchange.js';

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';

const HINT = {
  framework: 'node:http',
  fix: 'Pass the request to the listener untouched: nothing may read its body first.',
};

/**
 * A `node:http` request listener for a receiver: it reads the raw body stream itself (up to
 * `maxBodyBytes`, else 413 `PAYLOAD_TOO_LARGE` without reading the rest), answers any method but
 * POST with 405, and writes the receiver's answer. Use it as the server's listener, or call it
 * from your own router for the webhook path.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * import { createNodeListener } from 'loyalty-partner-sdk/node';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * const onWebhook = createNodeListener(receiver);
 * createServer((req, res) => {
 *   if (req.url === '/loyalty/webhooks') return onWebhook(req, res);
 *   res.writeHead(404).end();
 * }).listen(3000);
 * ```
 */
export function createNodeListener(
  receiver: Receiver,
  options?: AdapterOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const settings = normalizeAdapterOptions('createNodeListener', receiver, options, HINT);
  return (req, res) => {
    answerNodeRequest(receiver, req, res, settings).catch(() => res.destroy());
  };
}
