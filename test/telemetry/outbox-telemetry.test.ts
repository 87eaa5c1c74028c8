import { SpanKind } from '@opentelemetry/api';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { fail, ok, scriptedServerPerTest } from '../client/support/scripted-server.js';
import { useTempDir } from '../support/temp-dir.js';
import { inMemoryOtelPerTest, memoryLogger } from './support/otel.js';

const dir = useTempDir('outbox-otel-');
const server = scriptedServerPerTest(() => undefined);
const otel = inMemoryOtelPerTest();

describe('createOutbox tracing', () => {
  it('links the send span of an event delivered after a restart to the create span of its enqueue', async () => {
    const { tracerProvider } = otel;
    // First run: the service is down; the outbox keeps the event and is closed.
    server.script = (_req, res) => fail(res, 503, 'SERVICE_UNAVAILABLE');
    const client1 = clientFor(server, { tracerProvider, retry: false });
    const first = createOutbox({
      client: client1,
      store: fileStore(dir()),
      tracerProvider,
      retryDelayMs: 60_000,
    });
    await first.start();
    const { eventId } = await first.enqueue('InvoiceEarned', invoice());
    await first.flush();
    await first.close();
    await client1.close();

    // Second run, a new outbox on the same directory: the service is back.
    server.script = (_req, res) => ok(res);
    const client2 = clientFor(server, { tracerProvider });
    const second = createOutbox({ client: client2, store: fileStore(dir()), tracerProvider });
    await second.start();
    const stats = await second.flush();
    await second.close();
    await client2.close();

    expect(stats.delivered).toBe(1);
    const spans = otel.spans();
    const create = spans.filter((span) => span.name === 'create InvoiceEarned');
    expect(create).toHaveLength(1);
    expect(create[0]!.kind).toBe(SpanKind.PRODUCER);
    expect(create[0]!.attributes).toMatchObject({
      'messaging.operation.type': 'create',
      'messaging.message.id': eventId,
      'loyalty.tenant.id': 'default',
    });
    const sends = spans.filter((span) => span.name === 'send InvoiceEarned');
    expect(sends).toHaveLength(2);
    for (const send of sends) {
      expect(send.attributes['loyalty.tenant.id']).toBe('default');
      expect(send.links.map((link) => link.context.spanId)).toEqual([create[0]!.spanContext().spanId]);
      expect(send.links[0]!.context.traceId).toBe(create[0]!.spanContext().traceId);
    }
    expect(sends.map((send) => send.attributes['error.type'])).toEqual(['SERVICE_UNAVAILABLE', undefined]);
  });
});

describe('createOutbox metrics and logs', () => {
  it('reports depth and age per tenant, outcomes, and one log line per retry and park', async () => {
    server.script = (req, res) => {
      const { externalInvoiceId } = JSON.parse(req.body.toString()).payload;
      if (externalInvoiceId === 'inv-parked') fail(res, 400, 'CUSTOMER_MAPPING_NOT_FOUND');
      else fail(res, 503, 'SERVICE_UNAVAILABLE');
    };
    const logger = memoryLogger();
    let now = 1_700_000_000_000;
    const client = clientFor(server, { retry: false });
    const outbox = createOutbox({
      client,
      store: fileStore(dir()),
      meterProvider: otel.meterProvider,
      logger,
      retryDelayMs: 60_000,
      now: () => now,
    });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-parked'));
    await outbox.enqueue('InvoiceEarned', invoice('inv-later'));
    await outbox.flush();
    now += 30_000;

    const metrics = await otel.metrics();
    const tenant = { 'loyalty.tenant.id': 'default' };
    expect(metrics.get('loyalty.outbox.depth')).toEqual([{ attributes: tenant, value: 1 }]);
    expect(metrics.get('loyalty.outbox.oldest_age')).toEqual([{ attributes: tenant, value: 30 }]);
    expect(metrics.get('loyalty.outbox.events')).toEqual(
      expect.arrayContaining([
        { attributes: { ...tenant, 'loyalty.outbox.state': 'pending' }, value: 1 },
        { attributes: { ...tenant, 'loyalty.outbox.state': 'parked' }, value: 1 },
      ]),
    );
    expect(metrics.get('loyalty.outbox.outcomes')).toEqual([
      {
        attributes: {
          'loyalty.outcome': 'parked',
          ...tenant,
          'messaging.destination.name': 'InvoiceEarned',
          'error.type': 'CUSTOMER_MAPPING_NOT_FOUND',
        },
        value: 1,
      },
    ]);
    expect(logger.lines.map(({ level, line }) => [level, line.event, line.code]).sort()).toEqual([
      ['warn', 'loyalty.outbox.parked', 'CUSTOMER_MAPPING_NOT_FOUND'],
      ['warn', 'loyalty.outbox.retry', 'SERVICE_UNAVAILABLE'],
    ]);
    await outbox.close();
    await client.close();
  });
});
