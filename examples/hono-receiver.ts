/**
 * A Hono app receiving the Loyalty service's webhooks on Cloudflare Workers, Bun or Deno: all of
 * them serve `app.fetch`, and `fetchHandler` turns a receiver into `(Request) => Promise<Response>`.
 *
 *   bun run examples/hono-receiver.ts      # Bun serves the default export
 *   wrangler dev examples/hono-receiver.ts # with a LOYALTY_SECRETS binding
 *
 * Pass `c.req.raw` untouched: a body read by `c.req.json()` first cannot be verified.
 */

import { Hono } from 'hono';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

type Bindings = { LOYALTY_SECRETS: string };

function webhookHandler(secretsJson: string) {
  const secretsByTenant: Record<string, string[]> = JSON.parse(secretsJson);
  const receiver = createReceiver({
    secrets: (tenantId) => secretsByTenant[tenantId],
    handlers: {
      LoyaltyRuleChanged: (event, ctx) => {
        console.log(`${ctx.tenantId}: ${event.payload.ruleType} v${event.payload.ruleVersion}`);
      },
    },
  });
  return fetchHandler(receiver);
}

// Bun and Deno have `process.env`, Workers only bindings: read it without @types/node, so this
// file type-checks in a Workers project too.
const processEnv = () =>
  (globalThis as { process?: { env: Record<string, string | undefined> } }).process?.env;

const app = new Hono<{ Bindings: Bindings }>();
// Bindings are the same for every request of a deployment: one receiver (and inbox) serves all.
let onWebhook: ((request: Request) => Promise<Response>) | undefined;
app.post('/loyalty/webhooks', (c) => {
  onWebhook ??= webhookHandler(c.env?.LOYALTY_SECRETS ?? processEnv()?.LOYALTY_SECRETS ?? '{}');
  return onWebhook(c.req.raw);
});

export default app;
