import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { gate } from '../outbox/fixtures/scripted-sender.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Issue 42, item 13, the store's part: a drainer that stood still past its lease (SIGSTOP, a
 * frozen VM) and resumes must not send an event another drainer took over meanwhile. Renewing
 * the lease is the check: `extendLease` resolves with the claims that are still this store's, in
 * the statement that renews them, and an outcome of a claim taken over is not recorded (so its
 * hooks do not fire).
 */

describeWithPostgres('a Postgres outbox’s claims, at a lease’s end and at close', (url) => {
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

  it('taken over after its lease: no longer the paused store’s: its renewal leaves it out and its outcome is not recorded; the new holder’s is', async () => {
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

  it('closing while a claim is on the wire: close() waits for it, sends what it took, leaves nothing claimed', async () => {
    const store = postgresStore(pool, { schema });
    // Had close() resolved first, the claim would land in a process that is done: the event it
    // took stays claimed, unsent, and every other drainer waits a whole lease for it (seen in CI:
    // a till closed, its last claim came back afterwards and took the event the test's store was
    // about to claim).
    const steps: string[] = [];
    const reached = gate();
    const held = gate();
    // The store as a slow network shows it: the first claim is held on its way to the database.
    const slowStore: typeof store = {
      ...store,
      recordAndClaim: async (outcomes, request) => {
        if (steps.length === 0) {
          steps.push('claim sent');
          reached.open();
          await held.promise;
        }
        const result = await store.recordAndClaim!(outcomes, request);
        steps.push(`claim answered (${result.claimed.length})`);
        return result;
      },
    };
    const outbox = createOutbox({ client: clientFor(server), store: slowStore, defaultTenantId: 't-1' });
    await outbox.start();
    await reached.promise;
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-close'));

    const closed = outbox.close({ deadlineMs: 10_000 }).then(() => steps.push('closed'));
    held.open();
    await closed;

    expect(steps).toEqual(['claim sent', 'claim answered (1)', 'closed']);
    const { rows } = await pool.query(`SELECT state FROM "${schema}".outbox WHERE event_id = $1`, [eventId]);
    expect(rows).toEqual([{ state: 'delivered' }]);
    expect(server.requests).toHaveLength(1);
  });
});
