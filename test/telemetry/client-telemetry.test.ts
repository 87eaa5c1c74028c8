import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { LoyaltyApiError, LoyaltyValidationError, newEventId } from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { fail, ok } from '../client/support/scripted-server.js';
import { memoryLogger, serverAndOtelPerTest } from './support/otel.js';

const CORRELATION_ID = '0b5e8f7c-2d4a-4e6b-9c1d-3f2a1b0c9d8e';
const env = serverAndOtelPerTest();

describe('LoyaltyClient tracing', () => {
  it('records a send retried twice as one PRODUCER span over three HTTP CLIENT attempt spans', async () => {
    env.server.script = (_req, res, index) => (index < 2 ? fail(res, 503, 'SERVICE_UNAVAILABLE') : ok(res));
    const { tracerProvider, meterProvider } = env.otel;
    const client = clientFor(env.server, { tracerProvider, meterProvider });
    const { eventId } = await client.send('InvoiceEarned', invoice(), { correlationId: CORRELATION_ID });
    await client.close();

    const spans = env.otel.spans();
    const send = spans.filter((span) => span.kind === SpanKind.PRODUCER);
    expect(send).toHaveLength(1);
    expect(send[0]!.name).toBe('send InvoiceEarned');
    expect(send[0]!.attributes).toEqual({
      'messaging.system': 'loyalty',
      'messaging.operation.type': 'send',
      'messaging.operation.name': 'send',
      'messaging.destination.name': 'InvoiceEarned',
      'messaging.message.id': eventId,
      'loyalty.correlation_id': CORRELATION_ID,
    });
    expect(send[0]!.status.code).toBe(SpanStatusCode.UNSET);

    const attempts = spans.filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts).toHaveLength(3);
    const port = Number(new URL(env.server.url).port);
    attempts.forEach((span, i) => {
      expect(span.name).toBe('POST');
      expect(span.parentSpanContext?.spanId).toBe(send[0]!.spanContext().spanId);
      expect(span.spanContext().traceId).toBe(send[0]!.spanContext().traceId);
      expect(span.attributes).toMatchObject({
        'http.request.method': 'POST',
        'url.template': '/api/partner/v1/events',
        'server.address': '127.0.0.1',
        'server.port': port,
        'http.response.status_code': i < 2 ? 503 : 200,
      });
      expect(span.attributes['http.request.resend_count']).toBe(i === 0 ? undefined : i);
      expect(span.attributes['error.type']).toBe(i < 2 ? 'SERVICE_UNAVAILABLE' : undefined);
      expect(span.status.code).toBe(i < 2 ? SpanStatusCode.ERROR : SpanStatusCode.UNSET);
    });
  });

  it('marks the send span with the code the service refused it with', async () => {
    env.server.script = (_req, res) => fail(res, 400, 'CUSTOMER_MAPPING_NOT_FOUND');
    const client = clientFor(env.server, { tracerProvider: env.otel.tracerProvider });
    await expect(client.send('InvoiceEarned', invoice())).rejects.toBeInstanceOf(LoyaltyApiError);
    await client.close();

    const [attempt, send] = env.otel.spans();
    expect(attempt?.attributes['error.type']).toBe('CUSTOMER_MAPPING_NOT_FOUND');
    expect(send?.attributes['error.type']).toBe('CUSTOMER_MAPPING_NOT_FOUND');
    expect(send?.status.code).toBe(SpanStatusCode.ERROR);
  });
});

describe('LoyaltyClient metrics', () => {
  it('counts attempts by status and code, retries by code, and times each send', async () => {
    env.server.script = (_req, res, index) => (index === 0 ? fail(res, 503, 'SERVICE_UNAVAILABLE') : ok(res));
    const client = clientFor(env.server, { meterProvider: env.otel.meterProvider });
    await client.send('InvoiceEarned', invoice('inv-1'));
    await client.send('InvoiceEarned', invoice('inv-2'));
    await client.close();

    const metrics = await env.otel.metrics();
    const attempts = metrics.get('loyalty.client.attempts')!;
    expect(attempts).toHaveLength(2);
    expect(attempts).toEqual(
      expect.arrayContaining([
        {
          attributes: {
            'http.request.method': 'POST',
            'messaging.destination.name': 'InvoiceEarned',
            'http.response.status_code': 200,
          },
          value: 2,
        },
        {
          attributes: {
            'http.request.method': 'POST',
            'messaging.destination.name': 'InvoiceEarned',
            'http.response.status_code': 503,
            'error.type': 'SERVICE_UNAVAILABLE',
          },
          value: 1,
        },
      ]),
    );
    expect(metrics.get('loyalty.client.retries')).toEqual([
      { attributes: { 'error.type': 'SERVICE_UNAVAILABLE' }, value: 1 },
    ]);
    const [duration] = metrics.get('loyalty.client.send.duration')!;
    expect(duration?.attributes).toEqual({ 'messaging.destination.name': 'InvoiceEarned' });
    expect(duration?.value).toMatchObject({ count: 2 });
  });
});

describe('LoyaltyClient logger', () => {
  it('writes one line per retry and one for a refusal that means the setup is wrong', async () => {
    env.server.script = (_req, res, index) =>
      index === 0 ? fail(res, 503, 'SERVICE_UNAVAILABLE') : fail(res, 401, 'INVALID_API_KEY');
    const logger = memoryLogger();
    const client = clientFor(env.server, { logger });
    const eventId = newEventId();
    await expect(client.send('InvoiceEarned', invoice(), { eventId })).rejects.toBeInstanceOf(
      LoyaltyApiError,
    );
    await client.close();

    expect(logger.lines.map(({ level, line }) => [level, line.event])).toEqual([
      ['warn', 'loyalty.client.retry'],
      ['error', 'loyalty.client.misconfiguration'],
    ]);
    expect(logger.lines[0]!.line).toMatchObject({
      eventId,
      eventType: 'InvoiceEarned',
      attempt: 1,
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
    });
  });

  it('logs invalid options once, by path and what is expected, without their values', () => {
    const logger = memoryLogger();
    expect(() => clientFor(env.server, { logger, timeoutMs: -1, apiKey: 'has a space' })).toThrow(
      LoyaltyValidationError,
    );
    expect(JSON.stringify(logger.lines)).not.toContain('has a space');
    expect(logger.lines).toEqual([
      {
        level: 'error',
        line: {
          message:
            'Invalid LoyaltyClient options: apiKey: must be non-empty printable ASCII without spaces; ' +
            'timeoutMs: must be a whole number of milliseconds from 1 to 600000',
          event: 'loyalty.client.misconfiguration',
          options: 'apiKey, timeoutMs',
        },
      },
    ]);
  });
});
