/**
 * An Express app receiving the Loyalty service's webhooks for every merchant it serves.
 *
 *   LOYALTY_SECRETS='{"merchant-1":["whsec_new","whsec_old"]}' npx tsx examples/express-receiver.ts
 *
 * The webhook route is mounted before `express.json()`: the signature covers the raw bytes, which
 * a JSON parser would consume. Each merchant's secrets are looked up by `X-TenantId`; during a
 * rotation both the new and the old secret are listed.
 */

import express from 'express';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { createReceiver, createRuleCache } from 'loyalty-partner-sdk/webhooks';

const secretsByTenant: Record<string, string[]> = JSON.parse(process.env.LOYALTY_SECRETS ?? '{}');
const rules = createRuleCache();
const pausedTenants = new Set<string>();

const receiver = createReceiver({
  secrets: (tenantId) => secretsByTenant[tenantId],
  handlers: {
    async LoyaltyRuleChanged(event, ctx) {
      const { applied, previousVersion } = await rules.apply(event, ctx);
      const { ruleType, ruleVersion, externalStoreId } = event.payload;
      console.info(
        `${ctx.tenantId}/${externalStoreId} ${ruleType} v${ruleVersion}`,
        applied ? 'applied' : `kept v${previousVersion}`,
      );
    },
    IntegrationStatusChanged(event, ctx) {
      // After Disabled or Disconnected the partner stops sending events for this merchant.
      if (event.payload.status === 'Enabled') pausedTenants.delete(ctx.tenantId);
      else pausedTenants.add(ctx.tenantId);
    },
  },
  onUnhandled: (event, ctx) => console.info(`not handled: ${event.eventType} (${ctx.reason})`),
  onError: (err, ctx) =>
    console.warn(`webhook ${ctx.status} ${err.code} ${ctx.correlationId}: ${err.message}`),
});

const app = express();
app.post('/loyalty/webhooks', expressWebhook(receiver));
app.use(express.json()); // the rest of the app parses JSON as usual
app.get('/rules/:tenant/:store', async (req, res) => {
  const key = {
    tenantId: req.params.tenant,
    externalStoreId: req.params.store,
    ruleType: 'EarnRate',
  } as const;
  res.json((await rules.get(key)) ?? null);
});

const port = Number(process.env.PORT ?? 3000);
app.listen(port, () => console.info(`receiving on http://localhost:${port}/loyalty/webhooks`));
