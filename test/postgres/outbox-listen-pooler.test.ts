import { createOutbox, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresStoreError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { type RealServer, startPgBouncer } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * `listen` where the only connection is a transaction pooler's: LISTEN runs on whichever server
 * connection is free and is forgotten with it, so wake-ups would be lost without a word. The
 * store says so at start() (onError, a Node warning) and the outbox polls: nothing is lost. And
 * a postgres.js sql behind the pooler without `prepare: false` is named at start().
 */

describeWithPostgres('the Postgres outbox behind a transaction pooler', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  let bouncer: RealServer;
  let server: ScriptedServer;
  let schema: string;

  beforeAll(async () => {
    schema = uniqueName('listen_pooled');
    await migrate(admin, { schema });
    bouncer = await startPgBouncer(url, { mode: 'transaction', poolSize: 4 });
    server = await startScriptedServer();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await bouncer?.stop();
    await admin.end();
  });

  const errorsOf = () => {
    const errors: PostgresStoreError[] = [];
    let first!: (err: PostgresStoreError) => void;
    const firstError = new Promise<PostgresStoreError>((resolve) => {
      first = resolve;
    });
    return {
      errors,
      firstError,
      onError: (err: PostgresStoreError) => {
        errors.push(err);
        first(err);
      },
    };
  };

  it('says at start() that listen through the pooler cannot work, and still delivers by polling', async () => {
    const pool = new pg.Pool({ connectionString: bouncer.url, max: 3 });
    const listen = new pg.Client({ connectionString: bouncer.url });
    await listen.connect();
    const reported = errorsOf();
    const delivered: StoredEvent[] = [];
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(pool, { schema, listen, onError: reported.onError }),
      pollIntervalMs: 200,
      hooks: { onDelivered: ({ event }) => void delivered.push(event) },
    });
    await outbox.start();

    const err = await reported.firstError;
    expect(err.code).toBe('LISTEN_NOT_WORKING');
    expect(err.message).toMatch(/direct or session-mode connection/);
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-polled'));
    while (!delivered.some((event) => event.eventId === eventId)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(reported.errors.map((e) => e.code)).toEqual(['LISTEN_NOT_WORKING']);
    await outbox.close();
    await listen.end();
    await pool.end();
  }, 60_000);

  it('says at start() that a postgres.js sql behind the pooler must be given prepare: false', async () => {
    const sql = postgres(bouncer.url, { max: 2, onnotice: () => undefined });
    const reported = errorsOf();
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(sql, { schema, onError: reported.onError }),
    });
    await outbox.start();
    const err = await reported.firstError;
    expect(err.code).toBe('PREPARES_BEHIND_POOLER');
    expect(err.message).toMatch(/prepare: false/);
    await outbox.close();
    await sql.end();
  }, 60_000);

  it('says nothing of the kind for a postgres.js sql with prepare: false and listen on a direct connection', async () => {
    const sql = postgres(bouncer.url, { max: 2, prepare: false, onnotice: () => undefined });
    const listen = new pg.Client({ connectionString: url });
    await listen.connect();
    const reported = errorsOf();
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(sql, { schema, listen, onError: reported.onError }),
      // A minute: the event below is delivered by its wake-up, not by a poll.
      pollIntervalMs: 60_000,
    });
    await outbox.start();
    await outbox.flush();
    const other = postgres(url, { max: 2, onnotice: () => undefined });
    const till = createOutbox({
      client: clientFor(server),
      store: postgresStore(other, { schema }),
      pollIntervalMs: 60_000,
    });
    await till.start();
    const before = server.requests.length;
    await other.begin(async (tx) => {
      await till.enqueue('InvoiceEarned', invoice('inv-woken'), { tx });
      await till.flush();
    });
    while (server.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(reported.errors).toEqual([]);
    await till.close();
    await outbox.close();
    await other.end();
    await listen.end();
    await sql.end();
  }, 60_000);
});
