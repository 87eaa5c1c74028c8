import { metrics, trace } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { createSpan, outboxTelemetry } from '../../src/telemetry/outbox-telemetry.js';
import { Telemetry } from '../../src/telemetry/telemetry.js';
import { parseTraceparent, toTraceparent } from '../../src/telemetry/traceparent.js';
import { inMemoryOtel } from './support/otel.js';

afterEach(() => {
  trace.disable();
  metrics.disable();
});

describe('Telemetry', () => {
  it('records nothing without a provider given or registered', () => {
    const telemetry = new Telemetry({}, () => ({}));
    expect(telemetry.tracer()).toBeUndefined();
    expect(telemetry.instruments()).toBeUndefined();
    expect(telemetry.enabled()).toBe(false);
  });

  it('finds the global providers registered through @opentelemetry/api, also after it was created', async () => {
    const otel = inMemoryOtel();
    const telemetry = outboxTelemetry({});
    expect(telemetry.enabled()).toBe(false);
    trace.setGlobalTracerProvider(otel.tracerProvider);
    metrics.setGlobalMeterProvider(otel.meterProvider);

    const traceparent = createSpan(telemetry, { eventType: 'CouponUsed', eventId: 'e-1', tenantId: 't-1' });
    telemetry.instruments()?.outcomes.add(1, { 'loyalty.outcome': 'delivered' });

    const [span] = otel.spans();
    expect(span?.name).toBe('create CouponUsed');
    expect(traceparent).toBe(`00-${span?.spanContext().traceId}-${span?.spanContext().spanId}-01`);
    expect((await otel.metrics()).get('loyalty.outbox.outcomes')?.[0]?.value).toBe(1);
    await otel.shutdown();
  });

  it('prefers the providers it is given over the global ones', () => {
    const given = inMemoryOtel();
    const global = inMemoryOtel();
    trace.setGlobalTracerProvider(global.tracerProvider);
    createSpan(outboxTelemetry({ tracerProvider: given.tracerProvider }), {
      eventType: 'CouponUsed',
      eventId: 'e-1',
      tenantId: 't-1',
    });
    expect(given.spans()).toHaveLength(1);
    expect(global.spans()).toHaveLength(0);
  });
});

describe('traceparent', () => {
  it('round-trips a span context as a W3C traceparent', () => {
    const context = { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 };
    const text = toTraceparent(context);
    expect(text).toBe(`00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`);
    expect(parseTraceparent(text)).toEqual({ ...context, isRemote: true });
  });

  it('reads anything that is not a valid traceparent as none', () => {
    for (const bad of [undefined, 42, '', `00-${'0'.repeat(32)}-${'b'.repeat(16)}-01`, '00-abc-def-01']) {
      expect(parseTraceparent(bad)).toBeUndefined();
    }
  });
});
