import { once } from 'node:events';
import net from 'node:net';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientFor, invoice } from '../client/support/client-fixture.js';
import { ok, type ScriptedServer, startScriptedServer } from '../client/support/scripted-server.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { countingPool } from './support/counting-pool.js';

/*
 * What `enqueue({ tx })` costs the sale's transaction on the wire: the messages a driver sends
 * before waiting for an answer, counted by a TCP proxy between the driver and PostgreSQL. Each
 * time the driver writes after an answer is one round trip.
 */

/** A loopback proxy that records the protocol messages of each client write (their type bytes). */
async function countingProxy(target: URL) {
  const writes: string[] = [];
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    client.on('data', (data: Buffer) => {
      let types = '';
      for (let at = 0; at < data.length; at += 1 + data.readUInt32BE(at + 1)) {
        types += data[at] === 0 ? '-' : String.fromCharCode(data[at]!);
      }
      writes.push(types);
      upstream.write(data);
    });
    upstream.on('data', (data) => client.write(data));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(target.href);
  url.port = String((server.address() as net.AddressInfo).port);
  return { url: url.href, writes, close: () => server.close() };
}

describeWithPostgres('enqueue({ tx }) on the wire', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  let server: ScriptedServer;
  let schema: string;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;

  beforeAll(async () => {
    schema = uniqueName('outbox_wire');
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE "${schema}".sales (id serial PRIMARY KEY, invoice text NOT NULL)`);
    server = await startScriptedServer();
    proxy = await countingProxy(new URL(url));
  });
  afterAll(async () => {
    proxy.close();
    await server.close();
    await pool.end();
  });

  const outboxOn = async (db: pg.Pool | postgres.Sql) => {
    const outbox = createOutbox({
      client: clientFor(server),
      store: postgresStore(db, { schema }),
      pollIntervalMs: 60_000,
    });
    await outbox.start();
    await outbox.stopTenant('default', 'only enqueue here');
    return outbox;
  };

  it('is one statement with postgres.js behind the sale, awaited or pipelined', async () => {
    const sql = postgres(proxy.url, { max: 1, onnotice: () => undefined });
    const outbox = await outboxOn(pool);
    const insert = (tx: postgres.TransactionSql, id: string) =>
      tx`INSERT INTO ${sql(schema)}.sales (invoice) VALUES (${id})`;
    const sale = (id: string, pipelined: boolean) =>
      pipelined
        ? // postgres.js pipelines the queries of the array sql.begin's callback returns.
          sql.begin((tx) => [insert(tx, id), outbox.enqueue('InvoiceEarned', invoice(id), { tx })])
        : sql.begin(async (tx) => {
            await insert(tx, id);
            await outbox.enqueue('InvoiceEarned', invoice(id), { tx });
          });
    // The first sale prepares each statement on the connection.
    await sale('inv-wire-0', false);
    await sale('inv-wire-1', true);

    proxy.writes.length = 0;
    await sale('inv-wire-2', false);
    const awaited = [...proxy.writes];
    proxy.writes.length = 0;
    await sale('inv-wire-3', true);
    const pipelined = [...proxy.writes];

    // BEGIN, the sale, the INSERT alone (the sale has written: no probe), COMMIT.
    expect(awaited).toEqual(['Q', 'BES', 'BES', 'BES']);
    // BEGIN, the sale and the enqueue together, COMMIT: as many round trips as the sale alone.
    expect(pipelined).toEqual(['Q', 'BESBES', 'BES']);
    expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`)).rows[0].n).toBe(4);

    // Before the transaction's first write, the INSERT writes nothing and the probe follows:
    // BEGIN, the INSERT, the probe with the INSERT (Query, then Bind/Execute/Sync), the sale, COMMIT.
    const enqueueFirst = (id: string) =>
      sql.begin(async (tx) => {
        await outbox.enqueue('InvoiceEarned', invoice(id), { tx });
        await insert(tx, id);
      });
    await enqueueFirst('inv-wire-4');
    proxy.writes.length = 0;
    await enqueueFirst('inv-wire-5');
    expect(proxy.writes).toEqual(['Q', 'BES', 'QBES', 'BES', 'BES']);
    expect((await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`)).rows[0].n).toBe(6);
    await outbox.close();
    await sql.end();
  });

  it('is one statement with pg, prepared once per connection', async () => {
    const proxied = new pg.Pool({ connectionString: proxy.url, max: 1 });
    const outbox = await outboxOn(pool);
    const tx = await proxied.connect();
    const sale = async (id: string) => {
      await tx.query('BEGIN');
      await tx.query(`INSERT INTO "${schema}".sales (invoice) VALUES ($1)`, [id]);
      await outbox.enqueue('InvoiceEarned', invoice(id), { tx });
      await tx.query('COMMIT');
    };
    // The first enqueue on a connection goes out unnamed and learns that the connection is
    // direct (the backend's pid is the one the client started with); the next prepares by name.
    await sale('inv-pg-0');
    await sale('inv-pg-1');
    proxy.writes.length = 0;
    await sale('inv-pg-2');

    // BEGIN, the sale (pg parses an unnamed statement each time), the enqueue by name, COMMIT.
    expect(proxy.writes).toEqual(['Q', 'PBDES', 'BDES', 'Q']);
    tx.release();
    await outbox.close();
    await proxied.end();
  });

  it('is one statement through a query(text, values) adapter once the sale has written', async () => {
    const proxied = new pg.Pool({ connectionString: proxy.url, max: 1 });
    const outbox = await outboxOn(pool);
    const client = await proxied.connect();
    // pg's own answer (rowCount), and a bare count, as Prisma's $executeRawUnsafe answers.
    const asPg = { query: (text: string, values?: unknown[]) => client.query(text, values) };
    const withCount = {
      query: async (text: string, values?: unknown[]) => (await client.query(text, values)).rowCount,
    };
    // Rows alone: an INSERT without RETURNING answers none, so the answer says nothing.
    const rowsOnly = {
      query: async (text: string, values?: unknown[]) => (await client.query(text, values)).rows,
    };
    const rows = async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`)).rows[0].n as number;
    const before = await rows();
    const sale = async (
      id: string,
      tx: typeof asPg | typeof withCount | typeof rowsOnly,
      enqueueFirst = false,
    ) => {
      await client.query('BEGIN');
      if (enqueueFirst) await outbox.enqueue('InvoiceEarned', invoice(id), { tx });
      await client.query(`INSERT INTO "${schema}".sales (invoice) VALUES ($1)`, [id]);
      if (!enqueueFirst) await outbox.enqueue('InvoiceEarned', invoice(id), { tx });
      await client.query('COMMIT');
    };

    const writesOf = async (run: () => Promise<unknown>) => {
      proxy.writes.length = 0;
      await run();
      return [...proxy.writes];
    };
    // BEGIN, the sale, the enqueue (one unnamed statement: the adapter's own), COMMIT.
    expect(await writesOf(() => sale('inv-adapter-1', asPg))).toEqual(['Q', 'PBDES', 'PBDES', 'Q']);
    expect(await writesOf(() => sale('inv-adapter-2', withCount))).toEqual(['Q', 'PBDES', 'PBDES', 'Q']);
    // Before any write the transaction has no id: the guarded INSERT writes nothing, then the
    // savepoint probe and the INSERT.
    expect(await writesOf(() => sale('inv-adapter-3', asPg, true))).toEqual([
      'Q',
      'PBDES',
      'Q',
      'Q',
      'PBDES',
      'PBDES',
      'Q',
    ]);
    // An answer without a count: the probe and the INSERT follow, which finds the row written.
    expect(await writesOf(() => sale('inv-adapter-5', rowsOnly))).toEqual([
      'Q',
      'PBDES',
      'PBDES',
      'Q',
      'Q',
      'PBDES',
      'Q',
    ]);
    // Outside a transaction: the guarded INSERT writes nothing on its own, the probe is refused.
    const refused = await outbox
      .enqueue('InvoiceEarned', invoice('inv-adapter-4'), { tx: asPg })
      .catch((err: Error) => err);
    expect(refused).toMatchObject({ name: 'OutboxTransactionError', code: 'NOT_IN_TRANSACTION' });
    expect(await rows()).toBe(before + 4);
    client.release();
    await outbox.close();
    await proxied.end();
  });

  it('carries the outcomes of answers in the claims that follow them, and claims for many answers at a time', async () => {
    const drainSchema = uniqueName('outbox_wire_drain');
    await migrate(pool, { schema: drainSchema });
    // The service answers each request 10 ms later, as a remote one does.
    const slow = await startScriptedServer((_request, res) => {
      setTimeout(() => ok(res), 10);
    });
    const { pool: counted, statements } = countingPool(url, 2, {
      claim: (text) => text.includes('.outbox_record_claim('),
      record: (text) => text.includes('.outbox_record('),
    });
    const outbox = createOutbox({
      client: clientFor(slow),
      store: postgresStore(counted, { schema: drainSchema }),
      maxInFlight: 8,
      pollIntervalMs: 60_000,
    });
    await outbox.start();
    const events = 64;
    // The backlog is committed at once, so what the claims count is the drain alone: enqueued one
    // by one, each enqueue may start a claim of its own while the machine is slow (67 were once
    // counted for 64 events at a load of 2).
    const tx = await pool.connect();
    await tx.query('BEGIN');
    for (let i = 0; i < events; i++) {
      await outbox.enqueue(
        'InvoiceEarned',
        { ...invoice(`inv-drain-${i}`), externalCustomerId: `cust-${i % 16}` },
        { tx },
      );
    }
    await tx.query('COMMIT');
    tx.release();
    const stats = await outbox.flush();

    expect(stats.delivered).toBe(events);
    expect(slow.requests).toHaveLength(events);
    const { rows } = await pool.query(
      `SELECT state, count(*)::int AS n FROM "${drainSchema}".outbox GROUP BY state`,
    );
    expect(rows).toEqual([{ state: 'delivered', n: events }]);
    // A tenant near its cap claims again once half its slots are free, so answers arriving one
    // after another share a claim, and the claim writes their outcomes: an outcome is written on
    // its own only when no claim is coming.
    // (Each of the 16 customers' four events waits for the one before it, which takes more
    // claims than the cap alone would.)
    expect(statements.claim).toBeGreaterThan(0);
    expect(statements.claim).toBeLessThan(events);
    expect(statements.record).toBeLessThan(statements.claim / 4);
    await outbox.close();
    await slow.close();
    await counted.end();
  });
});
