import { createOutbox, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { migrate, PostgresStoreError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Wake-ups: two outboxes on separate pools (two POS processes), both polling only every minute.
 * A sale committed by one is delivered by the other long before its next poll, which only its
 * LISTEN can explain (the test's own timeout is far below the poll interval).
 */

const POLL_MS = 60_000;

describeWithPostgres('the Postgres outbox woken by LISTEN', (url) => {
  const tillPool = new pg.Pool({ connectionString: url, max: 3 });
  const drainerPool = new pg.Pool({ connectionString: url, max: 3 });
  let server: ScriptedServer;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('outbox_wake');
    await migrate(tillPool, { schema });
    server = await startScriptedServer();
  });
  afterAll(async () => {
    await server.close();
    await tillPool.end();
    await drainerPool.end();
  });
  beforeEach(() => tillPool.query(`TRUNCATE "${schema}".outbox`));

  /** The till: writes with the sale, never drains in the test's lifetime. */
  const till = async () => {
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(tillPool, { schema }),
      pollIntervalMs: POLL_MS,
    });
    await outbox.start();
    return outbox;
  };

  /** The drainer: its first claim finds nothing; then it waits for a wake-up (or a minute). */
  const drainer = async (listen: pg.Client | postgres.Sql) => {
    let delivered!: (event: StoredEvent) => void;
    const deliveredEvent = new Promise<StoredEvent>((resolve) => {
      delivered = resolve;
    });
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(drainerPool, { schema, listen }),
      pollIntervalMs: POLL_MS,
      hooks: { onDelivered: ({ event }) => delivered(event) },
    });
    await outbox.start();
    await outbox.flush();
    return { outbox, deliveredEvent };
  };

  it('delivers a sale committed by another process at once, listening on a dedicated pg.Client', async () => {
    const listen = new pg.Client({ connectionString: url });
    await listen.connect();
    const { outbox: other, deliveredEvent } = await drainer(listen);
    const pos = await till();

    const tx = await tillPool.connect();
    await tx.query('BEGIN');
    const { eventId } = await pos.enqueue('InvoiceEarned', invoice('inv-woken'), { tx });
    // The till's own claim after its enqueue ends before the COMMIT: else it may see the sale
    // first and send it itself, which is correct but not what this test shows.
    await pos.flush();
    await tx.query('COMMIT');
    tx.release();

    expect((await deliveredEvent).eventId).toBe(eventId);
    await pos.close();
    await other.close();
    // The store stopped listening; the client is still the user's, and still open.
    expect((await listen.query('SELECT pg_listening_channels() AS c')).rows).toEqual([]);
    await listen.end();
  });

  it('delivers a sale committed with postgres.js at once, listening with sql.listen', async () => {
    const sql = postgres(url, { max: 2, onnotice: () => undefined });
    const { outbox: other, deliveredEvent } = await drainer(sql);
    const pos = createOutbox({
      client: clientFor(server),
      store: postgresStore(sql, { schema }),
      pollIntervalMs: POLL_MS,
    });
    await pos.start();

    const eventId = await sql.begin(async (tx) => {
      const { eventId } = await pos.enqueue('InvoiceEarned', invoice('inv-woken-js'), { tx });
      // The till's own claim ends before the COMMIT (as above).
      await pos.flush();
      return eventId;
    });

    expect((await deliveredEvent).eventId).toBe(eventId);
    await pos.close();
    await other.close();
    await sql.end();
  });

  it('flush() after the commit delivers the sale: it looks for work, not waiting for a wake-up or a poll', async () => {
    const pos = await till(); // no LISTEN, its next poll a minute away
    const tx = await tillPool.connect();
    await tx.query('BEGIN');
    const { eventId } = await pos.enqueue('InvoiceEarned', invoice('inv-flushed'), { tx });
    await tx.query('COMMIT');
    tx.release();

    const stats = await pos.flush();
    expect(stats.delivered).toBe(1);
    const sent = server.requests.map(
      (request) => (JSON.parse(request.body.toString()) as { eventId: string }).eventId,
    );
    expect(sent).toContain(eventId);
    await pos.close();
  });

  it('sends no notification from a sale while no outbox listening is idle', async () => {
    // Learn the channel from a listening outbox, then close it: nobody is idle any more.
    const listen = new pg.Client({ connectionString: url });
    await listen.connect();
    const { outbox: other } = await drainer(listen);
    const [channel] = (await listen.query('SELECT pg_listening_channels() AS c')).rows.map((row) => row.c);
    await other.close();
    const seen: string[] = [];
    let marker!: () => void;
    const markerSeen = new Promise<void>((resolve) => {
      marker = resolve;
    });
    listen.on('notification', (message) => {
      seen.push(message.payload ?? '');
      if (message.payload === 'marker') marker();
    });
    await listen.query(`LISTEN "${channel}"`);

    const pos = await till();
    const tx = await tillPool.connect();
    await tx.query('BEGIN');
    await pos.enqueue('InvoiceEarned', invoice('inv-quiet'), { tx });
    await tx.query('COMMIT');
    tx.release();
    // Notifications arrive in commit order: the marker, committed after the sale, comes last.
    await tillPool.query('SELECT pg_notify($1, $2)', [channel, 'marker']);
    await markerSeen;

    expect(seen).toEqual(['marker']);
    await pos.close();
    await listen.end();
  });

  it('refuses a pool as the listening client, saying what to pass', () => {
    const err = (() => {
      try {
        postgresStore(drainerPool, { schema, listen: drainerPool as never });
      } catch (error) {
        return error;
      }
    })();
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect(err).toMatchObject({ code: 'INVALID_OPTIONS', message: expect.stringContaining('dedicated') });
  });
});
