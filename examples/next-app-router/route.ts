/**
 * app/api/loyalty/webhooks/route.ts of a Next.js App Router project.
 *
 * The handler reads the raw body itself, so no configuration is needed, and it runs on either
 * runtime. On the Edge runtime each isolate keeps its own in-memory inbox: give the receiver a
 * shared `InboxStore` (a database) so that a redelivery landing elsewhere is still recognised.
 */
import { nextRouteHandler } from 'loyalty-partner-sdk/next';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

export const runtime = 'nodejs'; // 'edge' works too

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
