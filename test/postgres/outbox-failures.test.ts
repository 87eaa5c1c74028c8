import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresDb, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { fail, ok, type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * What the service refuses, recorded by the Postgres outbox whichever driver the store is given:
 * a refusal parks the event once, with its error, and a failure that passes is retried with its
 * attempts counted. (On postgres.js the outcomes were once lost, and a parked event was sent again
 * and again.)
 */

describeWithPostgres('the Postgres outbox records failures, on pg and on postgres.js', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const sql = postgres(url, { max: 4, onnotice: () => undefined });
  let server: ScriptedServer;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('outbox_failures');
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    await sql.end();
    await pool.end();
  });
  beforeEach(async () => {
    await pool.query(`TRUNCATE "${schema}".outbox, "${schema}".outbox_tenant_stops`);
    server = await startScriptedServer();
  });
  afterEach(() => server.close());

  const rows = async () =>
    (
      await pool.query<{ invoice: string; state: string; attempts: number; code: string | null }>(
        `SELECT envelope->'payload'->>'externalInvoiceId' AS invoice, state, attempts, last_error->>'code' AS code
         FROM "${schema}".outbox ORDER BY seq`,
      )
    ).rows;

  it.each([
    ['pg', () => pool as PostgresDb],
    ['postgres.js', () => sql as unknown as PostgresDb],
  ])(
    'on %s: a refused event is parked once with its error; a failing one is retried, its attempts counted',
    async (_, db) => {
      const sends = new Map<string, number>();
      server.script = (req, res) => {
        const { externalInvoiceId: id } = JSON.parse(req.body.toString()).payload;
        sends.set(id, (sends.get(id) ?? 0) + 1);
        if (id === 'inv-refused') fail(res, 400, 'CUSTOMER_MAPPING_NOT_FOUND');
        else if (sends.get(id)! <= 2) fail(res, 503, 'SERVICE_UNAVAILABLE');
        else ok(res);
      };
      const client = clientFor(server, { retry: false });
      const outbox = createOutbox({
        client,
        store: postgresStore(db(), { schema }),
        pollIntervalMs: 20,
        retryDelayMs: 10,
        maxRetryDelayMs: 40,
      });
      await outbox.start();
      await outbox.enqueue('InvoiceEarned', invoice('inv-refused'), { tenantId: 'tenant-a' });
      await outbox.enqueue('InvoiceEarned', invoice('inv-retried'), { tenantId: 'tenant-b' });
      for (let i = 0; ; i++) {
        const states = (await rows()).map((row) => row.state);
        if (states.join() === 'parked,delivered') break;
        if (i > 500) throw new Error(`the outbox never settled: ${states.join()}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      // A parked event is not sent again, however long the outbox runs.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await outbox.close();
      await client.close();

      expect(Object.fromEntries(sends)).toEqual({ 'inv-refused': 1, 'inv-retried': 3 });
      expect(await rows()).toEqual([
        { invoice: 'inv-refused', state: 'parked', attempts: 1, code: 'CUSTOMER_MAPPING_NOT_FOUND' },
        { invoice: 'inv-retried', state: 'delivered', attempts: 2, code: 'SERVICE_UNAVAILABLE' },
      ]);
    },
  );
});
