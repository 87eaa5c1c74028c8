/**
 * A plain node:http server receiving the Loyalty service's webhooks, with one signing secret.
 *
 *   LOYALTY_SECRET=whsec_... npx tsx examples/node-receiver.ts
 */
import { createServer } from 'node:http';
import { createNodeListener } from 'loyalty-partner-sdk/node';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

const receiver = createReceiver({
  // Two secrets while rotating: deliveries signed with either verify.
  secrets: [process.env.LOYALTY_SECRET ?? '', process.env.LOYALTY_SECRET_PREVIOUS].filter(
    (secret): secret is string => Boolean(secret),
  ),
  handlers: {
    IntegrationStatusChanged: (event, ctx) => console.info(`${ctx.tenantId}: ${event.payload.status}`),
  },
});

const onWebhook = createNodeListener(receiver);
const server = createServer((req, res) => {
  if (req.url === '/loyalty/webhooks') return onWebhook(req, res);
  res.writeHead(404).end();
});
server.listen(Number(process.env.PORT ?? 3000));
