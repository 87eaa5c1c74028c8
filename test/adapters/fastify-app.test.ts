import Fastify from 'fastify';
import { fastifyWebhook } from 'loyalty-partner-sdk/fastify';
import { describe, expect, it } from 'vitest';
import { appAdapterOptions, appReceiver, PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, type RunningApp } from '../apps/support/app-conformance.js';
import { describeConformance } from './conformance.js';

describeConformance('fastifyWebhook on Fastify 5', async (receiver, options) => {
  const app = Fastify();
  await app.register(fastifyWebhook(receiver, { ...options, path: '/loyalty/webhooks' }));
  const origin = await app.listen({ port: 0, host: '127.0.0.1' });
  return { url: `${origin}/loyalty/webhooks`, send: (request) => fetch(request), close: () => app.close() };
});

// Fastify 5. Its own JSON parser stays in front of every route of the app, and the app adds
// another one at the root: the plugin's encapsulated raw parser still sees the exact bytes.
describeAppConformance(
  'Fastify 5',
  async (): Promise<RunningApp> => {
    const lines: string[] = [];
    const options = appAdapterOptions((line) => lines.push(line));
    const receiver = appReceiver();
    const app = Fastify();
    app.post('/orders', async (request) => ({ parsed: request.body }));
    await app.register(fastifyWebhook(receiver, { ...options, path: WEBHOOK_PATH }));
    await app.register(async (scope) => {
      scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) =>
        done(null, JSON.parse(String(body))),
      );
      await scope.register(fastifyWebhook(receiver, { ...options, path: PARSED_PATH }));
    });
    const origin = await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin, output: () => lines.join('\n'), stop: () => app.close() };
  },
  { expect: 'verified' },
);

describe('fastifyWebhook in an app', () => {
  it('leaves the JSON parser of the rest of the app alone', async () => {
    const app = Fastify();
    app.post('/orders', async (request) => ({ parsed: request.body }));
    await app.register(fastifyWebhook(appReceiver(), { path: WEBHOOK_PATH }));
    const answer = await app.inject({ method: 'POST', url: '/orders', payload: { id: 7 } });
    expect(answer.json()).toEqual({ parsed: { id: 7 } });
    await app.close();
  });

  it('answers 405 METHOD_NOT_ALLOWED in the envelope to a GET, under a prefix', async () => {
    const app = Fastify();
    await app.register(fastifyWebhook(appReceiver(), { path: WEBHOOK_PATH }), { prefix: '/v2' });
    const answer = await app.inject({ method: 'GET', url: `/v2${WEBHOOK_PATH}` });
    expect([answer.statusCode, answer.json().code, answer.headers.allow]).toEqual([
      405,
      'METHOD_NOT_ALLOWED',
      'POST',
    ]);
    await app.close();
  });

  it('refuses a path that is not a route', () => {
    expect(() => fastifyWebhook(appReceiver(), { path: 'loyalty' })).toThrow(/path/);
  });
});
