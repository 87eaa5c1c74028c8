/*
 * The conformance kit against the SDK's adapters in apps of the frameworks whose conformance
 * suite runs as a real app (test/adapters/*-app.test.ts): Express 4, Fastify and Koa, wired as the
 * README says. Node, Express 5, Next.js and fetch handlers run it in test/adapters/conformance.ts.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express4 from 'express4';
import Fastify from 'fastify';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { fastifyWebhook } from 'loyalty-partner-sdk/fastify';
import { koaWebhook } from 'loyalty-partner-sdk/koa';
import { checkReceiver, receiverCases } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { APP_SECRET, APP_TENANT, appReceiver, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';

interface App {
  origin: string;
  stop(): Promise<void>;
}

function listen(listener: Parameters<typeof createServer>[1]): Promise<App> {
  const server = createServer(listener);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

const APPS: [string, () => Promise<App>][] = [
  [
    'Express 4, the webhook route before express.json()',
    () => {
      const app = express4();
      app.post(WEBHOOK_PATH, expressWebhook(appReceiver()));
      app.use(express4.json());
      return listen(app);
    },
  ],
  [
    'Fastify 5, with its own JSON parser for the rest of the app',
    async () => {
      const app = Fastify();
      app.post('/orders', async (request) => ({ parsed: request.body }));
      await app.register(fastifyWebhook(appReceiver(), { path: WEBHOOK_PATH }));
      const origin = await app.listen({ port: 0, host: '127.0.0.1' });
      return { origin, stop: () => app.close() };
    },
  ],
  [
    'Koa 3, the webhook before koa-bodyparser',
    () => {
      const app = new Koa();
      app.use(koaWebhook(appReceiver(), { path: WEBHOOK_PATH }));
      app.use(bodyParser());
      return listen(app.callback());
    },
  ],
];

describe('check-receiver against the SDK adapters in real apps', () => {
  it.each(APPS)('%s: every case passes', async (_name, start) => {
    const app = await start();
    try {
      const report = await checkReceiver({
        url: `${app.origin}${WEBHOOK_PATH}`,
        secret: APP_SECRET,
        tenantId: APP_TENANT,
      });
      expect(report.cases.filter((result) => !result.pass)).toEqual([]);
      expect(report).toMatchObject({ passed: receiverCases.length + 1, failed: 0 });
    } finally {
      await app.stop();
    }
  });
});
