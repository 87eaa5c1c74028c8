/**
 * `loyalty-partner-sdk/koa`: a webhook receiver as Koa middleware. Koa is not imported, not even
 * for its types: the middleware is typed by the parts of the context it uses.
 *
 * @module loyalty-partner-sdk/koa
 */
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { nodeAnswer } from './node-exchange.js';
import type { NodeRequest } from './read-node-body.js';

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';

/**
 * Options of {@link koaWebhook}.
 *
 * @example
 * ```ts
 * import type { KoaWebhookOptions } from 'loyalty-partner-sdk/koa';
 * const options: KoaWebhookOptions = { path: '/loyalty/webhooks' };
 * ```
 */
export interface KoaWebhookOptions extends AdapterOptions {
  /**
   * Serve only requests to this path and pass the others on to `next`. Leave it out when a
   * router already mounts the middleware on the webhook's route.
   */
  path?: string | undefined;
}

/** The parts of a Koa context the middleware uses; a real Koa `Context` fits. */
interface KoaContextLike {
  req: NodeRequest;
  path: string;
  status: number;
  body: unknown;
  set(field: Record<string, string>): void;
}

type KoaMiddleware = (ctx: KoaContextLike, next: () => Promise<unknown>) => Promise<void>;

const HINT = {
  framework: 'Koa',
  fix:
    'Mount koaWebhook before the body parser: app.use(koaWebhook(receiver, { path })) first, ' +
    'then app.use(bodyParser()).',
};

/**
 * Koa middleware for a receiver: it reads the raw body from `ctx.req`, so mount it before any
 * body parser (behind one: 500 `RAW_BODY_UNAVAILABLE`, `onError`, the fix logged once). Over
 * `maxBodyBytes`: 413; any method but POST: 405; every error in the contract's envelope.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
 *
 * @example
 * ```ts
 * import Koa from 'koa';
 * import { koaWebhook } from 'loyalty-partner-sdk/koa';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * const app = new Koa();
 * app.use(koaWebhook(receiver, { path: '/loyalty/webhooks' })); // before any body parser
 * app.listen(3000);
 * ```
 */
export function koaWebhook(receiver: Receiver, options?: KoaWebhookOptions): KoaMiddleware {
  const { path, ...rest } = options ?? {};
  const settings = normalizeAdapterOptions('koaWebhook', receiver, rest, HINT);
  return async (ctx, next) => {
    if (path !== undefined && ctx.path !== path) {
      await next();
      return;
    }
    const answer = await nodeAnswer(receiver, ctx.req, settings);
    if (!answer) return; // the sender went away
    ctx.status = answer.status;
    ctx.body = answer.body;
    // After the body: Koa sets a text content type for a string body unless one is set later.
    ctx.set(answer.headers);
  };
}
