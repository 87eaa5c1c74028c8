import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { outboundEvent, resolveSecrets, SECRETS, signedDelivery } from '../webhooks/support/deliveries.js';
import { memoryLogger, otelPerTest } from './support/otel.js';

const env = otelPerTest();

const correlationId = '0b9d7a52-6a43-4a3c-9a5e-2f6f1b1c0d11';

describe('createReceiver tracing', () => {
  it('records one process CONSUMER span per delivery, the redelivery marked duplicate', async () => {
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: { LoyaltyRuleChanged: () => undefined },
      tracerProvider: env.otel.tracerProvider,
    });
    const event = outboundEvent('LoyaltyRuleChanged');
    const delivery = signedDelivery(event, { secret: SECRETS['merchant-1'][0], correlationId });
    expect((await receiver.handle(delivery)).status).toBe(200);
    expect((await receiver.handle(delivery)).status).toBe(200);

    const spans = env.otel.spans();
    expect(spans.map((span) => [span.name, span.kind])).toEqual([
      ['process LoyaltyRuleChanged', SpanKind.CONSUMER],
      ['process LoyaltyRuleChanged', SpanKind.CONSUMER],
    ]);
    const common = {
      'messaging.system': 'loyalty',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'LoyaltyRuleChanged',
      'messaging.message.id': event.eventId,
      'loyalty.tenant.id': 'merchant-1',
      'loyalty.correlation_id': correlationId,
    };
    expect(spans[0]!.attributes).toEqual({ ...common, 'loyalty.outcome': 'handled' });
    expect(spans[1]!.attributes).toEqual({ ...common, 'loyalty.outcome': 'duplicate' });
  });

  it('marks a refused delivery with its code, and logs the refusal without the signature', async () => {
    const logger = memoryLogger();
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: {},
      tracerProvider: env.otel.tracerProvider,
      logger,
    });
    const delivery = signedDelivery(outboundEvent('LoyaltyRuleChanged'), {
      secret: 'whsec_wrong',
      correlationId,
    });
    expect((await receiver.handle(delivery)).status).toBe(401);

    const [span] = env.otel.spans();
    expect(span?.name).toBe('process');
    expect(span?.attributes).toMatchObject({
      'loyalty.outcome': 'refused',
      'error.type': 'INVALID_SIGNATURE',
    });
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        line: {
          message: 'Delivery refused with 401 INVALID_SIGNATURE',
          event: 'loyalty.receiver.refused',
          status: 401,
          code: 'INVALID_SIGNATURE',
          tenantId: 'merchant-1',
          correlationId,
        },
      },
    ]);
  });

  it("runs the handler inside the process span: the handler's own spans are its children", async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    const tracer = env.otel.tracerProvider.getTracer('merchant-app');
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: {
        LoyaltyRuleChanged: async () => {
          await Promise.resolve();
          tracer.startSpan('update rules cache').end();
        },
      },
      tracerProvider: env.otel.tracerProvider,
    });
    await receiver.handle(
      signedDelivery(outboundEvent('LoyaltyRuleChanged'), { secret: SECRETS['merchant-1'][0] }),
    );

    const [child, process] = env.otel.spans();
    expect(child?.name).toBe('update rules cache');
    expect(child?.parentSpanContext?.spanId).toBe(process?.spanContext().spanId);
    expect(trace.getActiveSpan()).toBeUndefined();
  });
});

describe('createReceiver metrics', () => {
  it('counts deliveries by outcome and code, and times the handler', async () => {
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: { LoyaltyRuleChanged: () => undefined },
      meterProvider: env.otel.meterProvider,
    });
    const event = outboundEvent('LoyaltyRuleChanged');
    const delivery = signedDelivery(event, { secret: SECRETS['merchant-1'][0] });
    await receiver.handle(delivery);
    await receiver.handle(delivery);
    await receiver.handle(delivery);
    await receiver.handle(signedDelivery(event, { secret: 'whsec_wrong' }));

    const metrics = await env.otel.metrics();
    const type = { 'messaging.destination.name': 'LoyaltyRuleChanged', 'loyalty.tenant.id': 'merchant-1' };
    expect(metrics.get('loyalty.receiver.deliveries')).toEqual([
      { attributes: { 'loyalty.outcome': 'handled', ...type }, value: 1 },
      { attributes: { 'loyalty.outcome': 'duplicate', ...type }, value: 2 },
      {
        attributes: {
          'loyalty.outcome': 'refused',
          'error.type': 'INVALID_SIGNATURE',
          // An unauthenticated X-TenantId is anyone's word: counted under one bounded value.
          'loyalty.tenant.id': 'other',
        },
        value: 1,
      },
    ]);
    const [duration] = metrics.get('loyalty.receiver.handler.duration')!;
    expect(duration).toMatchObject({
      attributes: { 'messaging.destination.name': 'LoyaltyRuleChanged' },
      value: { count: 1 },
    });
  });
});
