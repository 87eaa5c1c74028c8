import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { koaWebhook } from 'loyalty-partner-sdk/koa';
import { PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, inProcess } from '../apps/support/app-conformance.js';
import { describeConformance } from './conformance.js';
import { listen } from './support/targets.js';

describeConformance('koaWebhook on Koa 3', (receiver, options) => {
  const app = new Koa();
  app.use(koaWebhook(receiver, options));
  return listen(app.callback());
});

// Koa 3: the webhook before koa-bodyparser as the README says, and a second one behind it.
describeAppConformance(
  'Koa 3',
  () =>
    inProcess((receiver, options) => {
      const app = new Koa();
      app.use(koaWebhook(receiver, { ...options, path: WEBHOOK_PATH }));
      // The parser's own onerror hook lets a body it refuses reach koaWebhook, which answers in
      // the contract's envelope (the README's Koa section), instead of Koa's text/plain 400.
      app.use(
        bodyParser({
          onerror: (error, ctx) => {
            if (ctx.path !== PARSED_PATH) throw error;
          },
        }),
      );
      app.use(koaWebhook(receiver, { ...options, path: PARSED_PATH }));
      return app.callback();
    }),
  { expect: 'refused', framework: 'Koa', fix: /Mount koaWebhook before the body parser/ },
);
