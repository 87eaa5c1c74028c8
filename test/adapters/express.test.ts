import express from 'express';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { describe, expect, it } from 'vitest';
import { outboundEvent, signedDelivery } from '../webhooks/support/deliveries.js';
import { describeConformance, post, recordingReceiver } from './conformance.js';
import { listen, type Target } from './support/targets.js';

describeConformance('expressWebhook on Express 5', (receiver, options) => {
  const app = express();
  app.all('/loyalty/webhooks', expressWebhook(receiver, options));
  return listen(app);
});

async function withApp(build: (app: express.Express) => void, use: (target: Target) => Promise<void>) {
  const app = express();
  build(app);
  const target = await listen(app);
  try {
    await use(target);
  } finally {
    await target.close();
  }
}

describe('expressWebhook behind a body parser', () => {
  it('answers 500 RAW_BODY_UNAVAILABLE at once, naming the fix, when express.json() consumed the body', async () => {
    const { receiver, seen } = recordingReceiver();
    await withApp(
      (app) => {
        app.use(express.json());
        app.post('/loyalty/webhooks', expressWebhook(receiver));
      },
      async (target) => {
        const answer = await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')));
        expect([answer.status, answer.body.code]).toEqual([500, 'RAW_BODY_UNAVAILABLE']);
        expect(answer.body.message).toContain('before app.use(express.json())');
        expect(answer.body.message).toContain("express.raw({ type: 'application/json' })");
      },
    );
    expect(seen).toEqual([]);
  });

  it('verifies the raw bytes that express.json({ verify }) preserved as req.rawBody', async () => {
    const { receiver, seen } = recordingReceiver();
    await withApp(
      (app) => {
        app.use(
          express.json({
            verify: (req, _res, buf) => {
              (req as typeof req & { rawBody?: Buffer }).rawBody = buf;
            },
          }),
        );
        app.post('/loyalty/webhooks', expressWebhook(receiver));
      },
      async (target) => {
        // Spacing that JSON.stringify would never reproduce: only the preserved bytes verify.
        const rawBody = JSON.stringify(outboundEvent('IntegrationStatusChanged'), null, 3);
        expect((await post(target, signedDelivery(rawBody))).status).toBe(200);
      },
    );
    expect(seen).toHaveLength(1);
  });

  it("verifies the Buffer of express.raw({ type: 'application/json' })", async () => {
    const { receiver, seen } = recordingReceiver();
    await withApp(
      (app) =>
        app.post('/loyalty/webhooks', express.raw({ type: 'application/json' }), expressWebhook(receiver)),
      async (target) => {
        expect((await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')))).status).toBe(
          200,
        );
      },
    );
    expect(seen).toHaveLength(1);
  });

  it('reads the body itself when the route is mounted before express.json()', async () => {
    const { receiver, seen } = recordingReceiver();
    await withApp(
      (app) => {
        app.post('/loyalty/webhooks', expressWebhook(receiver));
        app.use(express.json());
      },
      async (target) => {
        expect((await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')))).status).toBe(
          200,
        );
      },
    );
    expect(seen).toHaveLength(1);
  });

  it('applies maxBodyBytes to preserved bytes too', async () => {
    const { receiver } = recordingReceiver();
    await withApp(
      (app) =>
        app.post(
          '/loyalty/webhooks',
          express.raw({ type: '*/*' }),
          expressWebhook(receiver, { maxBodyBytes: 64 }),
        ),
      async (target) => {
        const answer = await post(target, signedDelivery(outboundEvent('IntegrationStatusChanged')));
        expect([answer.status, answer.body.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      },
    );
  });
});
