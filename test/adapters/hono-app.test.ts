import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { afterAll } from 'vitest';
import { appAdapterOptions, appReceiver, PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, type RunningApp } from '../apps/support/app-conformance.js';

// @hono/node-server puts its own Request and Response on the global object, as it does in an app;
// the test files that run after this one in the same worker get the platform's back (msw, for
// one, no longer recognised Response.error() as a network error).
const platform = { Request: globalThis.Request, Response: globalThis.Response };
afterAll(() => void Object.assign(globalThis, platform));

// Hono on Node (@hono/node-server); the "parser in front" is a route that reads c.req.json().
describeAppConformance(
  'Hono on Node',
  () =>
    new Promise<RunningApp>((resolve) => {
      const lines: string[] = [];
      const onWebhook = fetchHandler(
        appReceiver(),
        appAdapterOptions((line) => lines.push(line)),
      );
      const app = new Hono();
      app.post(WEBHOOK_PATH, (c) => onWebhook(c.req.raw));
      app.post(PARSED_PATH, async (c) => {
        await c.req.json().catch(() => undefined);
        return onWebhook(c.req.raw);
      });
      const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
        resolve({
          origin: `http://127.0.0.1:${info.port}`,
          output: () => lines.join('\n'),
          stop: () => new Promise((done) => server.close(() => done())),
        }),
      );
    }),
  { expect: 'refused', framework: 'fetch handler (Hono, Bun, Deno, Workers)', fix: /c\.req\.raw/ },
);
