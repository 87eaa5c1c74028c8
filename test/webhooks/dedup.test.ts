import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { outboundEvent, resolveSecrets, SECRET, SECRETS, signedDelivery } from './support/deliveries.js';
import { serveOverHttp } from './support/over-http.js';

describe('deduplication on eventId alone, over HTTP', () => {
  it('runs the handler once when one captured delivery is replayed under other X-TenantId values', async () => {
    const runs: string[] = [];
    // One static secret: X-TenantId is not authenticated, so it must not make a replay "new".
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: { IntegrationStatusChanged: (_event, ctx) => void runs.push(ctx.tenantId) },
    });
    const server = await serveOverHttp(receiver);
    try {
      const captured = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const first = await server.post(captured);
      const replays = [];
      for (const tenantId of ['merchant-2', 'merchant-3', 'other', '']) {
        replays.push(
          await server.post({ ...captured, headers: { ...captured.headers, 'x-tenantid': tenantId } }),
        );
      }
      expect(first.status).toBe(200);
      expect(replays.map((answer) => [answer.status, answer.body.outcome])).toEqual(
        Array.from({ length: 4 }, () => [200, 'duplicate']),
      );
      expect(runs).toEqual(['merchant-1']);
    } finally {
      await server.close();
    }
  });

  it('treats one eventId signed by two tenants as one event, since event ids are unique', async () => {
    const runs: string[] = [];
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: { IntegrationStatusChanged: (_event, ctx) => void runs.push(ctx.tenantId) },
    });
    const server = await serveOverHttp(receiver);
    try {
      const event = outboundEvent('IntegrationStatusChanged');
      await server.post(signedDelivery(event, { tenantId: 'merchant-1' }));
      const again = await server.post(
        signedDelivery(event, { tenantId: 'merchant-2', secret: SECRETS['merchant-2'] }),
      );
      expect(again).toMatchObject({ status: 200, body: { outcome: 'duplicate' } });
      expect(runs).toEqual(['merchant-1']);
    } finally {
      await server.close();
    }
  });
});
