import express4 from 'express4';
import { expressWebhook, expressWebhookErrorHandler } from 'loyalty-partner-sdk/express';
import { PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, inProcess } from '../apps/support/app-conformance.js';

// Express 4 (installed as `express4`), with the raw bytes kept by express.json({ verify }): the
// route behind the parser verifies, and a body the parser refuses still reaches the receiver.
describeAppConformance(
  'Express 4',
  () =>
    inProcess((receiver, options) => {
      const app = express4();
      app.post(WEBHOOK_PATH, expressWebhook(receiver, options));
      app.use(express4.json({ verify: (req, _res, buf) => Object.assign(req, { rawBody: buf }) }));
      app.post(PARSED_PATH, expressWebhook(receiver, options));
      app.use(PARSED_PATH, expressWebhookErrorHandler(receiver, options));
      return app;
    }),
  { expect: 'verified' },
);
