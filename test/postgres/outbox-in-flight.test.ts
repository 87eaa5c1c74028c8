import type { ServerResponse } from 'node:http';
import { createOutbox, type SharedOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresDb, type PostgresOutboxTx, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { ok, type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * `maxInFlight` is per outbox (per process) and per tenant: two outboxes draining one schema
 * each send up to their own cap of a tenant at once, so adding a process adds sending capacity.
 * The service holds every request until the test lets them go, so what is in flight stays put.
 */

const EVENTS = 10;
const CAP = 2;

describeWithPostgres('maxInFlight of two outboxes on one schema', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const sql = postgres(url, { max: 3, onnotice: () => undefined });
  let server: ScriptedServer;
  let held: ServerResponse[] = [];
  let mostHeld = 0;
  let onHeld: () => void = () => undefined;

  beforeAll(async () => {
    server = await startScriptedServer((_request, res) => {
      held.push(res);
      mostHeld = Math.max(mostHeld, held.length);
      onHeld();
    });
  });
  afterAll(async () => {
    await server.close();
    await pool.end();
    await sql.end();
  });

  const heldReaches = (n: number) =>
    new Promise<void>((resolve) => {
      onHeld = () => {
        if (held.length >= n) resolve();
      };
      onHeld();
    });

  const outboxOn = (db: PostgresDb, schema: string): SharedOutbox<PostgresOutboxTx> =>
    createOutbox({
      client: clientFor(server),
      store: postgresStore(db, { schema }),
      maxInFlight: CAP,
      concurrency: 1,
    });

  it.each([
    ['pg', () => pool as PostgresDb],
    ['postgres.js', () => sql as unknown as PostgresDb],
  ])(
    'on %s: each outbox sends up to its own cap of the tenant at once, and every event once',
    async (_driver, db) => {
      const schema = uniqueName('outbox_cap');
      await migrate(pool, { schema });
      held = [];
      mostHeld = 0;
      onHeld = () => undefined;
      const first = outboxOn(db(), schema);
      const second = outboxOn(db(), schema);
      await first.start();
      // Customers of their own: causal order holds nothing back, only the caps do.
      for (let i = 0; i < EVENTS; i++) {
        await first.enqueue('InvoiceEarned', { ...invoice(`inv-cap-${i}`), externalCustomerId: `cust-${i}` });
      }
      await second.start();
      await heldReaches(2 * CAP);

      expect((await first.stats()).inFlight).toBe(CAP);
      expect((await second.stats()).inFlight).toBe(CAP);
      expect((await first.stats()).pending).toBe(EVENTS);

      // Answer everything from now on; the rest drains, still within the two caps.
      onHeld = () => {
        for (const res of held.splice(0)) ok(res);
      };
      onHeld();
      await Promise.all([first.flush(), second.flush()]);
      expect(mostHeld).toBe(2 * CAP);
      const sent = server.requests.map(
        (request) => JSON.parse(request.body.toString()).payload.externalInvoiceId,
      );
      const ours = sent.filter((id: string) => id.startsWith('inv-cap-'));
      expect(ours).toHaveLength(EVENTS);
      expect(new Set(ours).size).toBe(EVENTS);
      await first.close();
      await second.close();
      expect(
        (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state = 'pending'`))
          .rows[0].n,
      ).toBe(0);
      server.requests.length = 0;
    },
  );
});
