import express from 'express';
import { expressWebhook, expressWebhookErrorHandler } from 'loyalty-partner-sdk/express';
import { PARSED_PATH, WEBHOOK_PATH } from '../apps/fixtures/app-receiver.js';
import { describeAppConformance, inProcess } from '../apps/support/app-conformance.js';

// Express 5, wired as the README says: the webhook route before express.json(), and a second
// route behind it with the error handler that keeps parser failures in the contract's envelope.
describeAppConformance(
  'Express 5',
  () =>
    inProcess((receiver, options) => {
      const app = express();
      app.post(WEBHOOK_PATH, expressWebhook(receiver, options));
      app.use(express.json());
      app.post(PARSED_PATH, expressWebhook(receiver, options));
      app.use(PARSED_PATH, expressWebhookErrorHandler(receiver, options));
      return app;
    }),
  { expect: 'refused', framework: 'Express', fix: /express\.raw\(\{ type: 'application\/json' \}\)/ },
);
