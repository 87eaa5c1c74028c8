import { createOutbox, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { type RealServer, startPostgres } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A drainer listening for wake-ups on a dedicated pg.Client, as the docs show, while PostgreSQL
 * restarts (a failover looks the same to clients): the listen client's connection ends and it
 * emits `error`. That used to end the process (an `error` event nobody listened to). Now the
 * store opens a new client like it and listens again; the drain goes on, and a sale committed
 * after the restart wakes it long before its next poll.
 */

const POLL_MS = 60_000;

describeWithPostgres('the Postgres outbox listening across a server restart', () => {
  let server: RealServer;
  let pool: pg.Pool;
  let scripted: ScriptedServer;
  const schema = uniqueName('outbox_restart');
  const poolErrors: Error[] = [];

  beforeAll(async () => {
    // A server of this test's own: the shared one must not restart under other suites.
    server = await startPostgres();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    // What a production process sets: idle clients of a pool also see the server go away.
    pool.on('error', (err) => poolErrors.push(err));
    await migrate(pool, { schema });
    scripted = await startScriptedServer();
  });
  afterAll(async () => {
    await scripted?.close();
    await pool?.end();
    await server?.stop();
  });

  const listening = async (): Promise<number> => {
    const { rows } = await pool.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND pid <> pg_backend_pid()",
    );
    return rows[0].n;
  };
  const until = async (what: () => Promise<boolean>): Promise<void> => {
    for (;;) {
      if (await what().catch(() => false)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  it('keeps the process alive, listens again, and is woken by a sale committed after the restart', async () => {
    const delivered: StoredEvent[] = [];
    let onDelivered: () => void = () => undefined;
    const listen = new pg.Client({ connectionString: server.url });
    await listen.connect();
    const drainer = createOutbox({
      client: clientFor(scripted),
      store: postgresStore(pool, { schema, listen }),
      pollIntervalMs: POLL_MS,
      hooks: {
        onDelivered: ({ event }) => {
          delivered.push(event);
          onDelivered();
        },
      },
    });
    await drainer.start();
    await drainer.flush();
    expect(await listening()).toBe(1);

    await server.restart!();
    // The store's new listen client is in place (the old one's session died with the server).
    await until(async () => (await listening()) === 1);
    // Its first claim after listening again finds nothing and marks it idle, as before a sale.
    await until(
      async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox_idle_listeners`)).rows[0].n ===
        1,
    );

    const sale = new Promise<void>((resolve) => {
      onDelivered = resolve;
    });
    const tx = await pool.connect();
    await tx.query('BEGIN');
    const { eventId } = await drainer.enqueue('InvoiceEarned', invoice('inv-after-restart'), { tx });
    await tx.query('COMMIT');
    tx.release();

    // Only a wake-up delivers it before the next poll, a minute away.
    await sale;
    expect(delivered.map((event) => event.eventId)).toEqual([eventId]);
    await drainer.close();
    // The client the store made in place of the user's is closed with the store.
    await until(async () => (await listening()) === 0);
    await listen.end().catch(() => undefined);
  }, 60_000);
});
