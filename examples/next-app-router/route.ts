/**
 * app/api/loyalty/webhooks/route.ts of a Next.js App Router project.
 *
 * The handler reads the raw body itself, so no configuration is needed. It exports no `runtime`:
 * the Node.js runtime is the default, and Next.js 16 refuses `export const runtime` in a project
 * with `cacheComponents` on (the default of create-next-app). Builds under Next.js 15 and 16.
 * The Edge runtime (`export const runtime = 'edge'`, only without cacheComponents) works too, but
 * Next.js deprecates it, it verifies with the slower Web Crypto, and each isolate keeps its own
 * in-memory inbox: give the receiver a shared `InboxStore` (a database) there.
 */
import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

const receiver = createReceiver({
  secrets: (tenantId) =>
    process.env[`LOYALTY_SECRET_${tenantId.toUpperCase().replace(/\W/g, '_')}`]?.split(','),
  handlers: {
    IntegrationStatusChanged: async (event, ctx) => {
      console.info(`merchant ${ctx.tenantId} is now ${event.payload.status}`);
    },
    RedemptionExpiredOrCancelled: async (event) => {
      console.info(`redemption ${event.payload.redemptionId} dropped: ${event.payload.reason}`);
    },
  },
});

export const POST = nextRouteHandler(receiver);
