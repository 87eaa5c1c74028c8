import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Issue 42, item 13, the store's part: a drainer that stood still past its lease (SIGSTOP, a
 * frozen VM) and resumes must not send an event another drainer took over meanwhile. Renewing
 * the lease is the check: `extendLease` resolves with the claims that are still this store's, in
 * the statement that renews them, and an outcome of a claim taken over is not recorded (so its
 * hooks do not fire).
 */

describeWithPostgres('a Postgres outbox claim taken over after its lease', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  let server: ScriptedServer;
  let schema: string;
  beforeAll(async () => {
    schema = uniqueName('outbox_lease');
    await migrate(pool, { schema });
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
    await pool.end();
  });

  it('is no longer the paused store’s: its renewal leaves it out and its outcome is not recorded; the new holder’s is', async () => {
    // The event, written by a till whose tenant is stopped (it sends nothing), then let go.
    const till = createOutbox({
      client: clientFor(server),
      store: postgresStore(pool, { schema }),
      defaultTenantId: 't-1',
    });
    await till.start();
    await till.stopTenant('t-1', 'only enqueue here');
    const { eventId } = await till.enqueue('InvoiceEarned', invoice('inv-lease'));
    await till.close();
    const paused = postgresStore(pool, { schema });
    const other = postgresStore(pool, { schema });
    await paused.setTenantStop('t-1', null);
    const request = { limit: 10, maxInFlight: 10, leaseMs: 50, skipTenants: [] };

    const [claimed] = await paused.claim(request);
    expect(claimed?.eventId).toBe(eventId);
    // The paused drainer's lease runs out (the database's clock says when).
    while (
      (
        await pool.query(
          `SELECT 1 FROM "${schema}".outbox WHERE event_id = $1 AND claim_expires_at < clock_timestamp()`,
          [eventId],
        )
      ).rowCount === 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const [takenOver] = await other.claim({ ...request, leaseMs: 60_000 });
    expect(takenOver?.eventId).toBe(eventId);

    // The paused one resumes: before sending, its renewal says the claim is gone.
    expect(await paused.extendLease([eventId], 60_000)).toEqual([]);
    expect(await other.extendLease([eventId], 60_000)).toEqual([eventId]);
    // Had it sent anyway, its outcome is not recorded (no onDelivered); the holder's is.
    expect(await paused.record([{ eventId, kind: 'delivered' as const }])).toEqual([]);
    expect(await other.record([{ eventId, kind: 'delivered' as const }])).toEqual([eventId]);
    await paused.close();
    await other.close();
  });
});
