/**
 * `loyalty-partner-sdk/express`: a webhook receiver as Express middleware (Express 4 and 5, and
 * NestJS on its Express platform). Express is not imported, not even for its types: the
 * middleware is typed structurally, so it loads nothing for users of other frameworks.
 *
 * @module loyalty-partner-sdk/express
 */
import type { ServerResponse } from 'node:http';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, type FrameworkHint, normalizeAdapterOptions } from './adapter-options.js';
import { answerNodeRequest, sendNodeAnswer } from './node-exchange.js';
import type { NodeRequest } from './read-node-body.js';
import { bodyRefused } from './refusals.js';

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';
export type { NodeRequest } from './read-node-body.js';

/**
 * Options of {@link expressWebhook}: the options of every adapter, and which framework serves it,
 * so that a misconfiguration is explained in that framework's terms.
 *
 * @example
 * ```ts
 * import type { ExpressWebhookOptions } from 'loyalty-partner-sdk/express';
 * const options: ExpressWebhookOptions = { framework: 'nestjs', maxBodyBytes: 256 * 1024 };
 * ```
 */
export interface ExpressWebhookOptions extends AdapterOptions {
  /** `'nestjs'` when a NestJS controller calls the middleware. @default 'express' */
  framework?: 'express' | 'nestjs' | undefined;
}

/** Express middleware, typed by the parts of `req`, `res` and `next` it uses. */
type WebhookMiddleware = (req: NodeRequest, res: ServerResponse, next: (error?: unknown) => void) => void;

/** Express error-handling middleware (four arguments), typed by the parts it uses. */
type WebhookErrorMiddleware = (
  error: unknown,
  req: NodeRequest,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

const HINTS: Record<'express' | 'nestjs', FrameworkHint> = {
  express: {
    framework: 'Express',
    fix:
      'Mount the webhook route before app.use(express.json()), or put ' +
      "express.raw({ type: 'application/json' }) on it, or keep the bytes with " +
      'express.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: buf }) }).',
  },
  nestjs: {
    framework: 'NestJS',
    fix:
      'Create the app with NestFactory.create(AppModule, { rawBody: true }): Nest then keeps the ' +
      'bytes as req.rawBody for the webhook controller.',
  },
};

function settingsOf(name: string, receiver: Receiver, options: ExpressWebhookOptions | undefined) {
  const { framework = 'express', ...rest } = options ?? {};
  return normalizeAdapterOptions(name, receiver, rest, HINTS[framework]);
}

/**
 * Express middleware for a receiver: it reads the raw body itself, so mount it before any JSON
 * parser. Behind one it uses the bytes the parser kept (`req.rawBody` from `verify`, or
 * `express.raw()`'s `Buffer`); with none, 500 `RAW_BODY_UNAVAILABLE`, `onError` and one warning
 * naming the fix. It never verifies re-serialised JSON.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for a non-receiver or a wrong option
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
export function expressWebhook(receiver: Receiver, options?: ExpressWebhookOptions): WebhookMiddleware {
  const settings = settingsOf('expressWebhook', receiver, options);
  return (req, res, next) => {
    answerNodeRequest(receiver, req, res, settings).catch(next);
  };
}

/**
 * Express error-handling middleware for a webhook route behind a JSON parser, so a body the
 * parser refuses is answered in the contract's envelope, not Express's page: passed to the
 * receiver when the raw bytes were kept (`verify`), else 500 `RAW_BODY_UNAVAILABLE`; over the
 * parser's `limit`, 413 `PAYLOAD_TOO_LARGE`. Other errors go on to `next`.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS`, as {@link expressWebhook}
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { expressWebhook, expressWebhookErrorHandler } from 'loyalty-partner-sdk/express';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * const app = express();
 * app.use(express.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: buf }) }));
 * app.post('/loyalty/webhooks', expressWebhook(receiver));
 * // After the routes: Express skips routes once a parser failed, and calls error handlers.
 * app.use('/loyalty/webhooks', expressWebhookErrorHandler(receiver));
 * ```
 */
export function expressWebhookErrorHandler(
  receiver: Receiver,
  options?: ExpressWebhookOptions,
): WebhookErrorMiddleware {
  const settings = settingsOf('expressWebhookErrorHandler', receiver, options);
  return (error, req, res, next) => {
    const type = (error as { type?: unknown } | null)?.type;
    if (type === 'entity.too.large') {
      const maxBodyBytes = Number((error as { limit?: unknown }).limit) || settings.maxBodyBytes;
      sendNodeAnswer(res, bodyRefused('too-large', req.headers, { ...settings, maxBodyBytes }, true));
    } else if (type === 'entity.parse.failed') {
      answerNodeRequest(receiver, req, res, settings).catch(next);
    } else {
      next(error);
    }
  };
}
