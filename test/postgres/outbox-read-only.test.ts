import { createOutbox, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresStoreError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Issue 40, item 5: the drainer's database turns read-only (25006), as a primary demoted by a
 * failover does. The store says so once (onError READ_ONLY), the outbox polls on, and once the
 * database takes writes again every event is delivered, with nothing done by hand.
 */

describeWithPostgres('a Postgres outbox whose database turns read-only', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const role = uniqueName('drainer');
  let server: ScriptedServer;
  let schema: string;
  let drainerUrl: string;
  beforeAll(async () => {
    schema = uniqueName('outbox_ro');
    await migrate(admin, { schema });
    await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER`);
    const target = new URL(url);
    target.username = role;
    drainerUrl = target.href;
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('reports READ_ONLY once, keeps polling, and delivers everything once writes are back', async () => {
    // The events, written while the tenant is stopped (nobody sends them yet).
    const till = createOutbox({
      client: clientFor(server),
      store: postgresStore(admin, { schema }),
      defaultTenantId: 't-1',
    });
    await till.start();
    await till.stopTenant('t-1', 'only enqueue here');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await till.enqueue('InvoiceEarned', invoice(`inv-ro-${i}`))).eventId);
    await till.close();
    // The drainer's sessions are read-only from now on; the tenant is let go.
    await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
    await admin.query(`DELETE FROM "${schema}".outbox_tenant_stops`);

    const pool = new pg.Pool({ connectionString: drainerUrl, max: 3 });
    pool.on('error', () => undefined);
    const reported: PostgresStoreError[] = [];
    const delivered: StoredEvent[] = [];
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(pool, { schema, onError: (err) => reported.push(err) }),
      pollIntervalMs: 50,
      hooks: { onDelivered: ({ event }) => void delivered.push(event) },
    });
    await outbox.start();
    while (reported.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(reported.map((err) => err.code)).toEqual(['READ_ONLY']);
    expect(reported[0]!.message).toMatch(/writer endpoint/);

    // The failover completes: new sessions take writes (the pool replaced the failed ones).
    await admin.query(`ALTER ROLE ${role} RESET default_transaction_read_only`);
    while (delivered.length < ids.length) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(delivered.map((event) => event.eventId).sort()).toEqual([...ids].sort());
    // Said once per outage, not at every poll.
    expect(reported.map((err) => err.code)).toEqual(['READ_ONLY']);
    await outbox.close();
    await pool.end();
  }, 60_000);
});
