import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { fail, type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { inMemoryOtel } from '../telemetry/support/otel.js';

/*
 * The Postgres outbox observed like the file outbox: the trace context of `enqueue` travels with
 * the row (a `send` span in another process links to the `create` span of the sale), and the
 * gauges count what the table holds, every process's events included.
 */

describeWithPostgres('the Postgres outbox under OpenTelemetry', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  let server: ScriptedServer;
  let otel: ReturnType<typeof inMemoryOtel>;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('outbox_otel');
    await migrate(pool, { schema });
  });
  afterAll(() => pool.end());
  beforeEach(async () => {
    await pool.query(`TRUNCATE "${schema}".outbox, "${schema}".outbox_tenant_stops`);
    server = await startScriptedServer();
    otel = inMemoryOtel();
  });
  afterEach(async () => {
    await server.close();
    await otel.shutdown();
  });

  it('links the send span of another outbox to the create span of the enqueue in the sale transaction', async () => {
    const { tracerProvider } = otel;
    const client = clientFor(server, { tracerProvider });
    // The till enqueues with the sale and sends nothing (its tenant stopped: woken by the
    // commit, it would send the event itself before it closes); another process sends.
    const till = createOutbox({ client, store: postgresStore(pool, { schema }), tracerProvider });
    await till.start();
    await till.stopTenant('default', 'this till only enqueues');
    const tx = await pool.connect();
    await tx.query('BEGIN');
    const { eventId } = await till.enqueue('InvoiceEarned', invoice('inv-traced'), { tx });
    await tx.query('COMMIT');
    tx.release();
    expect((await till.get(eventId))?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
    await till.close();

    const drainer = createOutbox({ client, store: postgresStore(pool, { schema }), tracerProvider });
    await drainer.start();
    await drainer.resumeTenant('default');
    const stats = await drainer.flush();
    await drainer.close();
    await client.close();

    expect(stats.delivered).toBe(1);
    const spans = otel.spans();
    const create = spans.filter((span) => span.name === 'create InvoiceEarned');
    expect(create.map((span) => span.attributes['messaging.message.id'])).toEqual([eventId]);
    const sends = spans.filter((span) => span.name === 'send InvoiceEarned');
    expect(sends).toHaveLength(1);
    expect(sends[0]!.links.map((link) => link.context.spanId)).toEqual([create[0]!.spanContext().spanId]);
    expect(sends[0]!.links[0]!.context.traceId).toBe(create[0]!.spanContext().traceId);
  });

  it('gauges count the events of every process by tenant and state, with the age of the oldest pending one', async () => {
    server.script = (req, res) => {
      const { externalInvoiceId } = JSON.parse(req.body.toString()).payload;
      if (externalInvoiceId === 'inv-parked') fail(res, 400, 'CUSTOMER_MAPPING_NOT_FOUND');
      else if (externalInvoiceId === 'inv-waiting') fail(res, 503, 'SERVICE_UNAVAILABLE');
      else fail(res, 500, 'UNEXPECTED');
    };
    let now = 1_700_000_000_000;
    const client = clientFor(server, { retry: false });
    const writer = createOutbox({
      client,
      store: postgresStore(pool, { schema }),
      defaultTenantId: 'tenant-a',
      retryDelayMs: 60_000,
      now: () => now,
    });
    await writer.start();
    await writer.enqueue('InvoiceEarned', invoice('inv-parked'));
    await writer.enqueue('InvoiceEarned', invoice('inv-waiting'), { tenantId: 'tenant-b' });
    // Same customer: waits for the one before it.
    await writer.enqueue('InvoiceEarned', invoice('inv-after'), { tenantId: 'tenant-b' });
    await writer.flush();
    await writer.close();
    now += 30_000;

    // Another outbox, which has sent nothing itself, reports what the table holds.
    const observer = createOutbox({
      client,
      store: postgresStore(pool, { schema }),
      defaultTenantId: 'tenant-a',
      meterProvider: otel.meterProvider,
      retryDelayMs: 60_000,
      now: () => now,
    });
    await observer.start();
    const metrics = await otel.metrics();
    await observer.close();
    await client.close();

    const a = { 'loyalty.tenant.id': 'tenant-a' };
    const b = { 'loyalty.tenant.id': 'tenant-b' };
    expect(metrics.get('loyalty.outbox.depth')).toEqual(
      expect.arrayContaining([
        { attributes: a, value: 0 },
        { attributes: b, value: 2 },
      ]),
    );
    expect(metrics.get('loyalty.outbox.oldest_age')).toEqual(
      expect.arrayContaining([
        { attributes: a, value: 0 },
        { attributes: b, value: 30 },
      ]),
    );
    expect(metrics.get('loyalty.outbox.events')).toEqual(
      expect.arrayContaining([
        { attributes: { ...a, 'loyalty.outbox.state': 'parked' }, value: 1 },
        { attributes: { ...b, 'loyalty.outbox.state': 'pending' }, value: 2 },
      ]),
    );
    expect(metrics.get('loyalty.outbox.events')).toHaveLength(2);
  });
});
