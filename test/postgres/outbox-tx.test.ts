import { newEventId } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * `enqueue({ tx, eventId })` of an eventId the outbox holds already, in each way the enqueue
 * reaches the caller's transaction: the sale still commits and the event is stored once. An
 * enqueue that makes its own eventId writes without looking for a stored one (no row can hold
 * it), so these are the calls that must keep the look.
 */
describeWithPostgres('enqueue({ tx }) with an eventId the caller gives', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  let server: ScriptedServer;
  let schema: string;
  const outboxOn = (store: ReturnType<typeof postgresStore>) =>
    createOutbox({ client: clientFor(server), store, pollIntervalMs: 60_000 });
  let outbox: ReturnType<typeof outboxOn>;

  beforeAll(async () => {
    schema = uniqueName('outbox_tx');
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE "${schema}".sales (id serial PRIMARY KEY, invoice text NOT NULL)`);
    server = await startScriptedServer();
    outbox = outboxOn(postgresStore(pool, { schema }));
    await outbox.start();
    await outbox.stopTenant('default', 'only enqueue here');
  });
  afterAll(async () => {
    await outbox.close();
    await server.close();
    await sql.end();
    await pool.end();
  });

  const insertSale = () => `INSERT INTO "${schema}".sales (invoice) VALUES ($1)`;
  const salesOf = async (id: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".sales WHERE invoice = $1`, [id])).rows[0].n;
  const storedAs = async (eventId: string) =>
    (
      await pool.query(
        `SELECT envelope->'payload'->>'externalInvoiceId' AS invoice FROM "${schema}".outbox WHERE event_id = $1`,
        [eventId],
      )
    ).rows.map((row) => row.invoice);

  /** Two sales with the same eventId: both commit, the event is the first one's, stored once. */
  async function twice(way: (id: string, eventId: string) => Promise<unknown>) {
    const eventId = newEventId();
    const [first, second] = [uniqueName('inv'), uniqueName('inv')];
    await way(first, eventId);
    await way(second, eventId);
    expect([await salesOf(first), await salesOf(second)]).toEqual([1, 1]);
    expect(await storedAs(eventId)).toEqual([first]);
  }

  it('a pg client inside BEGIN', async () => {
    const tx = await pool.connect();
    try {
      await twice(async (id, eventId) => {
        await tx.query('BEGIN');
        await tx.query(insertSale(), [id]);
        expect(await outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId })).toEqual({ eventId });
        await tx.query('COMMIT');
      });
    } finally {
      tx.release();
    }
  });

  it('a pg client with BEGIN and the sale still queued (the probed INSERT)', async () => {
    const tx = await pool.connect();
    try {
      await twice(async (id, eventId) => {
        const queued = [tx.query('BEGIN'), tx.query(insertSale(), [id])];
        await outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId });
        await Promise.all(queued);
        await tx.query('COMMIT');
      });
    } finally {
      tx.release();
    }
  });

  it('postgres.js, awaited, pipelined and before the sale wrote', async () => {
    const sale = (tx: postgres.TransactionSql, id: string) => tx.unsafe(insertSale(), [id]);
    await twice((id, eventId) =>
      sql.begin(async (tx) => {
        await sale(tx, id);
        await outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId });
      }),
    );
    await twice((id, eventId) =>
      sql.begin((tx) => [sale(tx, id), outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId })]),
    );
    await twice((id, eventId) =>
      sql.begin(async (tx) => {
        await outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId });
        await sale(tx, id);
      }),
    );
  });

  it('an adapter that runs one statement at a time', async () => {
    const client = await pool.connect();
    const tx = { query: (text: string, values?: unknown[]) => client.query(text, values) };
    try {
      await twice(async (id, eventId) => {
        await client.query('BEGIN');
        await client.query(insertSale(), [id]);
        await outbox.enqueue('InvoiceEarned', invoice(id), { tx, eventId });
        await client.query('COMMIT');
      });
    } finally {
      client.release();
    }
  });
});
