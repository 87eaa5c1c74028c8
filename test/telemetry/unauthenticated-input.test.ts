import express from 'express';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { post } from '../adapters/conformance.js';
import { listen, type Target } from '../adapters/support/targets.js';
import { outboundEvent, resolveSecrets, SECRETS, signedDelivery } from '../webhooks/support/deliveries.js';
import { inMemoryOtel, memoryLogger } from './support/otel.js';

/*
 * What a forger controls never becomes telemetry a reader has to pay for or must not see: a
 * metric series per forged `X-TenantId`, or a signature smuggled in `X-Correlation-Id` and kept
 * in a span attribute or a log line. Driven over real HTTP through the Express adapter, with the
 * OpenTelemetry SDK's providers.
 */

let otel: ReturnType<typeof inMemoryOtel>;
let target: Target;
const logger = memoryLogger();

beforeEach(async () => {
  otel = inMemoryOtel();
  logger.lines.length = 0;
  const receiver = createReceiver({
    secrets: resolveSecrets,
    handlers: { LoyaltyRuleChanged: () => undefined },
    tracerProvider: otel.tracerProvider,
    meterProvider: otel.meterProvider,
    logger,
  });
  const app = express();
  app.post('/loyalty/webhooks', expressWebhook(receiver));
  target = await listen(app);
});
afterEach(async () => {
  await target.close();
  await otel.shutdown();
});

const tenantsOf = async (): Promise<string[]> => {
  const points = (await otel.metrics()).get('loyalty.receiver.deliveries') ?? [];
  return [...new Set(points.map((point) => String(point.attributes['loyalty.tenant.id'])))].sort();
};

describe('attribute values from unauthenticated input', () => {
  it('counts 300 deliveries under forged tenants in one bounded series, beside the real tenant', async () => {
    for (let i = 0; i < 300; i += 1) {
      const forged = signedDelivery(outboundEvent('LoyaltyRuleChanged'), {
        secret: 'whsec_forged',
        tenantId: `forged-${i}`,
      });
      expect((await post(target, forged)).status).toBe(401);
    }
    const real = signedDelivery(outboundEvent('LoyaltyRuleChanged'), { secret: SECRETS['merchant-1'][0] });
    expect((await post(target, real)).status).toBe(200);

    expect(await tenantsOf()).toEqual(['merchant-1', 'other']);
    const points = (await otel.metrics()).get('loyalty.receiver.deliveries') ?? [];
    const forgedCount = points
      .filter((point) => point.attributes['loyalty.tenant.id'] === 'other')
      .reduce((sum, point) => sum + (point.value as number), 0);
    expect(forgedCount).toBe(300);
  });

  it('redacts a signature carried in X-Correlation-Id from the span, the log line and the answer', async () => {
    const digest = 'ab'.repeat(32);
    const correlationId = `t=1763630000,v1=${digest}`;
    const forged = signedDelivery(outboundEvent('LoyaltyRuleChanged'), {
      secret: 'whsec_forged',
      correlationId,
    });
    const answer = await post(target, forged);
    expect(answer.status).toBe(401);

    const recorded = JSON.stringify({
      spans: otel.spans().map((span) => span.attributes),
      log: logger.lines,
      answer: answer.body,
    });
    expect(recorded).not.toContain(digest);
    expect(otel.spans()[0]?.attributes['loyalty.correlation_id']).toBe('t=1763630000,v1=[redacted]');
    expect(logger.lines).toHaveLength(1);
  });

  it('keeps an ordinary correlation id as it was sent', async () => {
    const correlationId = '0b9d7a52-6a43-4a3c-9a5e-2f6f1b1c0d11';
    const real = signedDelivery(outboundEvent('LoyaltyRuleChanged'), { correlationId });
    const answer = await post(target, real);
    expect(answer.status).toBe(200);
    expect(answer.correlationHeader).toBe(correlationId);
    expect(otel.spans()[0]?.attributes['loyalty.correlation_id']).toBe(correlationId);
  });
});
