/**
 * `loyalty-partner-sdk/fastify`: a webhook receiver as a Fastify plugin. Fastify is not imported,
 * not even for its types: the plugin is typed by the few methods it calls.
 *
 * @module loyalty-partner-sdk/fastify
 */
import { LoyaltyValidationError } from '../contract/errors.js';
import type { ReceiverResponse } from '../webhooks/answers.js';
import type { HeadersLike } from '../webhooks/read-headers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { type AdapterOptions, normalizeAdapterOptions } from './adapter-options.js';
import { type NodeRequest, readNodeBody } from './read-node-body.js';
import { answerRead, bodyRefused, methodNotAllowed } from './refusals.js';

// A body a hook or parser read before the plugin's own parser: answered RAW_BODY_UNAVAILABLE.
const CONSUMED = Object.freeze({});

export type { AdapterOptions } from './adapter-options.js';

export { AdapterError } from './misconfiguration.js';

/**
 * Options of {@link fastifyWebhook}.
 *
 * @example
 * ```ts
 * import type { FastifyWebhookOptions } from 'loyalty-partner-sdk/fastify';
 * const options: FastifyWebhookOptions = { path: '/loyalty/webhooks', maxBodyBytes: 256 * 1024 };
 * ```
 */
export interface FastifyWebhookOptions extends AdapterOptions {
  /** The route of the webhook, below the plugin's `prefix` if it is registered with one. */
  path: string;
}

/** The parts of a Fastify request the plugin reads. */
interface FastifyRequestLike {
  method: string;
  headers: HeadersLike;
  body?: unknown;
}

/** The parts of a Fastify reply the plugin writes. */
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  send(payload?: unknown): FastifyReplyLike;
}

/** The parts of a Fastify instance the plugin uses; a real `FastifyInstance` fits. */
interface FastifyInstanceLike {
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string,
    parser: (
      request: never,
      payload: NodeRequest,
      done: (error: Error | null, body?: unknown) => void,
    ) => void,
  ): void;
  setErrorHandler(
    handler: (error: { code?: string }, request: FastifyRequestLike, reply: FastifyReplyLike) => unknown,
  ): unknown;
  route(options: {
    method: string[];
    url: string;
    handler: (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown>;
  }): unknown;
}

const HINT = {
  framework: 'Fastify',
  fix:
    'Register fastifyWebhook with app.register() as it is (not wrapped in fastify-plugin) and set ' +
    'no request.body in a hook before it: its own content-type parser keeps the raw bytes.',
};

// Deliveries are POSTs; the other methods are routed too, to be answered 405 in the envelope.
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * A Fastify plugin serving a receiver at `path`. In its own encapsulated context every
 * content-type parser keeps the raw bytes, so the app's JSON parser and other routes are
 * untouched. Over `maxBodyBytes`: 413 `PAYLOAD_TOO_LARGE`; any method but POST: 405.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS` for something that is not a receiver, a
 * missing `path`, or an option of the wrong kind
 *
 * @example
 * ```ts
 * import Fastify from 'fastify';
 * import { fastifyWebhook } from 'loyalty-partner-sdk/fastify';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const receiver = createReceiver({ secrets: process.env.LOYALTY_SECRET ?? '', handlers: {} });
 * const app = Fastify();
 * await app.register(fastifyWebhook(receiver, { path: '/loyalty/webhooks' }));
 * await app.listen({ port: 3000 });
 * ```
 */
export function fastifyWebhook(
  receiver: Receiver,
  options: FastifyWebhookOptions,
): (instance: FastifyInstanceLike, pluginOptions: unknown) => Promise<void> {
  const { path, ...rest } = options ?? ({} as Partial<FastifyWebhookOptions>);
  const settings = normalizeAdapterOptions('fastifyWebhook', receiver, rest, HINT);
  if (typeof path !== 'string' || !path.startsWith('/')) {
    throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid fastifyWebhook arguments', [
      { path: 'path', message: "must be the webhook's route, starting with '/'" },
    ]);
  }
  const reply = (to: FastifyReplyLike, answer: ReceiverResponse) =>
    to.code(answer.status).headers(answer.headers).send(answer.body);

  return async (instance) => {
    instance.removeAllContentTypeParsers();
    // The body is read here, as every Node adapter reads it: same size limit, same deadline.
    instance.addContentTypeParser('*', (_request, payload, done) => {
      readNodeBody(payload, settings.maxBodyBytes, settings.bodyTimeoutMs).then((read) => {
        if (read.kind === 'read') done(null, read.body);
        else if (read.kind === 'consumed') done(null, CONSUMED);
        else done(Object.assign(new Error(`Webhook body ${read.kind}`), { code: read.kind }));
      });
    });
    instance.setErrorHandler((error, request, to) => {
      if (error.code === 'too-large' || error.code === 'timed-out')
        return reply(to, bodyRefused(error.code, request.headers, settings, true));
      throw error;
    });
    instance.route({
      method: METHODS,
      url: path,
      handler: async (request, to) => {
        if (request.method !== 'POST') return reply(to, methodNotAllowed(request.headers));
        const { body = new Uint8Array(0) } = request;
        const read =
          body instanceof Uint8Array ? { kind: 'read' as const, body } : { kind: 'consumed' as const };
        return reply(to, await answerRead(receiver, read, request.headers, settings, true));
      },
    });
  };
}
