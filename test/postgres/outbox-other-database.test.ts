import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, OutboxTransactionError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sale } from '../support/outbox-fixtures.js';
import { rejectionOf } from '../support/rejection.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * `enqueue({ tx })` with a transaction on another database, one migrated alike (the wrong
 * DATABASE_URL, a test database): the event used to commit there, where this outbox never drains.
 * It is refused now with every kind of `tx` (a pg client, a postgres.js transaction sql, a
 * query(text, values) adapter), by the INSERT itself, which fails and with it the transaction:
 * nothing of it commits there. A transaction on the store's own database still writes, with no
 * statement added; its connection is checked once.
 */

describeWithPostgres('enqueue({ tx }) on another database', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schema = uniqueName('outbox_db');
  const otherName = uniqueName('other_db');
  const otherUrl = url.replace(/\/[^/]*$/, `/${otherName}`);
  let own: pg.Pool;
  let other: pg.Pool;
  let otherJs: postgres.Sql;
  let ownJs: postgres.Sql;
  const client = new LoyaltyClient({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'lk_test',
    signingSecret: 'whsec_test',
  });

  beforeAll(async () => {
    await admin.query(`CREATE DATABASE ${otherName}`);
    own = new pg.Pool({ connectionString: url, max: 3 });
    other = new pg.Pool({ connectionString: otherUrl, max: 3 });
    await migrate(own, { schema });
    await migrate(other, { schema });
    await other.query(`CREATE TABLE "${schema}".sales (invoice text)`);
    await own.query(`CREATE TABLE "${schema}".sales (invoice text)`);
    otherJs = postgres(otherUrl, { max: 1, onnotice: () => undefined });
    ownJs = postgres(url, { max: 1, onnotice: () => undefined });
  });
  afterAll(async () => {
    await client.close();
    await otherJs.end();
    await ownJs.end();
    await other.end();
    await own.end();
    // pg's pool.end() resolves once its clients are told to end, not once their connections
    // have: a DROP ... WITH (FORCE) then would terminate one still closing (57P01), an error
    // nothing listens for. Every connection to the database is gone first.
    while (
      (await admin.query('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [otherName]))
        .rows[0].n > 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await admin.query(`DROP DATABASE ${otherName} WITH (FORCE)`);
    await admin.end();
  });

  const started = async () => {
    const outbox = createOutbox({ client, store: postgresStore(own, { schema }), defaultTenantId: 't-1' });
    await outbox.start();
    // Only enqueues here: the events written stay where they are.
    await outbox.stopTenant('t-1', 'only enqueue here');
    return outbox;
  };
  const rowsIn = async (pool: pg.Pool, table: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0].n as number;
  const refusal = async (promise: Promise<unknown>) => {
    expect((await rejectionOf(promise, OutboxTransactionError)).code).toBe('OTHER_DATABASE');
  };

  it('refuses a pg client of the other database; its transaction commits nothing there', async () => {
    const outbox = await started();
    const tx = await other.connect();
    try {
      await tx.query('BEGIN');
      await tx.query(`INSERT INTO "${schema}".sales VALUES ('inv-1')`);
      await refusal(outbox.enqueue('InvoiceEarned', sale('inv-1'), { tx }));
      await tx.query('COMMIT');
    } finally {
      tx.release();
    }
    expect([await rowsIn(other, 'outbox'), await rowsIn(other, 'sales')]).toEqual([0, 0]);
    await outbox.close();
  });

  it('refuses it with the statements sent in one go (BEGIN, sale, enqueue, COMMIT not awaited)', async () => {
    const outbox = await started();
    const tx = await other.connect();
    try {
      const begin = tx.query('BEGIN');
      const insert = tx.query(`INSERT INTO "${schema}".sales VALUES ('inv-2')`);
      const refused = refusal(outbox.enqueue('InvoiceEarned', sale('inv-2'), { tx }));
      const commit = tx.query('COMMIT');
      await Promise.allSettled([begin, insert, commit]);
      await refused;
    } finally {
      tx.release();
    }
    expect([await rowsIn(other, 'outbox'), await rowsIn(other, 'sales')]).toEqual([0, 0]);
    await outbox.close();
  });

  /** The mark a session carries once it was checked (`same-database.ts`). */
  const checkedMark = async (run: (text: string) => Promise<unknown[]>) =>
    (
      (
        await run(`SELECT coalesce(current_setting('loyalty_outbox.checked_database', true), '') AS mark`)
      )[0] as {
        mark: string;
      }
    ).mark;

  it('writes with a pg client on its own database, one statement per enqueue, the connection checked once', async () => {
    const outbox = await started();
    const before = await rowsIn(own, 'outbox');
    const tx = await own.connect();
    const texts: string[] = [];
    const query = tx.query.bind(tx) as (...args: unknown[]) => Promise<unknown>;
    // Counts what the outbox sends on the caller's client.
    const counting = (...args: unknown[]) => {
      const [first] = args;
      texts.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return query(...args);
    };
    const mark = () => checkedMark(async (text) => (await tx.query(text)).rows);
    try {
      expect(await mark()).toBe('');
      // A first enqueue rolled back takes its mark with it: the next transaction checks again.
      await tx.query('BEGIN');
      (tx as unknown as { query: typeof counting }).query = counting;
      await outbox.enqueue('InvoiceEarned', sale('inv-4'), { tx });
      (tx as unknown as { query: typeof query }).query = query;
      await tx.query('ROLLBACK');
      expect(await mark()).toBe('');
      (tx as unknown as { query: typeof counting }).query = counting;
      for (const invoice of ['inv-5', 'inv-6', 'inv-7']) {
        await tx.query('BEGIN');
        await outbox.enqueue('InvoiceEarned', sale(invoice), { tx });
        await tx.query('COMMIT');
      }
      (tx as unknown as { query: typeof query }).query = query;
      expect(await mark()).toMatch(/\//);
    } finally {
      tx.release();
    }
    // BEGIN, the INSERT, COMMIT: nothing more than the enqueue's own statement.
    expect(texts.filter((text) => text.includes('INSERT INTO'))).toHaveLength(4);
    expect(texts.filter((text) => !/^(BEGIN|COMMIT|INSERT INTO)/.test(text))).toEqual([]);
    expect(await rowsIn(own, 'outbox')).toBe(before + 3);
    await outbox.close();
  });

  it('refuses a postgres.js transaction of the other database, awaited; nothing commits there', async () => {
    const outbox = await started();
    const err = await otherJs
      .begin(async (tx) => {
        await tx`INSERT INTO ${otherJs(schema)}.sales VALUES ('inv-js-1')`;
        await outbox.enqueue('InvoiceEarned', sale('inv-js-1'), { tx });
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toMatchObject({ name: 'OutboxTransactionError', code: 'OTHER_DATABASE' });
    expect([await rowsIn(other, 'outbox'), await rowsIn(other, 'sales')]).toEqual([0, 0]);
    await outbox.close();
  });

  it('refuses it pipelined with the sale, and when the caller catches the refusal and goes on', async () => {
    const outbox = await started();
    let enqueued: Promise<unknown> | undefined;
    const pipelined = otherJs.begin((tx) => {
      enqueued = outbox.enqueue('InvoiceEarned', sale('inv-js-2'), { tx });
      return [tx`INSERT INTO ${otherJs(schema)}.sales VALUES ('inv-js-2')`, enqueued];
    });
    await expect(pipelined).rejects.toThrow();
    await refusal(enqueued!);
    // The INSERT failed in the transaction: it cannot commit, whatever the caller does then.
    const caught = otherJs.begin(async (tx) => {
      await tx`INSERT INTO ${otherJs(schema)}.sales VALUES ('inv-js-3')`;
      await refusal(outbox.enqueue('InvoiceEarned', sale('inv-js-3'), { tx }));
    });
    await expect(caught).rejects.toThrow();
    expect([await rowsIn(other, 'outbox'), await rowsIn(other, 'sales')]).toEqual([0, 0]);
    await outbox.close();
  });

  it('writes with a postgres.js transaction on its own database, awaited and pipelined; its connection is checked once', async () => {
    const outbox = await started();
    const before = await rowsIn(own, 'outbox');
    await ownJs.begin(async (tx) => {
      await tx`INSERT INTO ${ownJs(schema)}.sales VALUES ('inv-js-4')`;
      await outbox.enqueue('InvoiceEarned', sale('inv-js-4'), { tx });
    });
    await ownJs.begin((tx) => [
      tx`INSERT INTO ${ownJs(schema)}.sales VALUES ('inv-js-5')`,
      outbox.enqueue('InvoiceEarned', sale('inv-js-5'), { tx }),
    ]);
    expect(await rowsIn(own, 'outbox')).toBe(before + 2);
    // One connection (max: 1): the mark the first enqueue left spares the others the comparison.
    expect(await checkedMark((text) => ownJs.unsafe(text))).toMatch(/\//);
    await outbox.close();
  });

  it('refuses a query(text, values) adapter on the other database, before and after the sale writes', async () => {
    const outbox = await started();
    const connection = await other.connect();
    const tx = { query: (text: string, values?: unknown[]) => connection.query(text, values) };
    try {
      for (const [invoice, enqueueFirst] of [
        ['inv-adapter-1', false],
        ['inv-adapter-2', true],
      ] as const) {
        await connection.query('BEGIN');
        if (enqueueFirst) await refusal(outbox.enqueue('InvoiceEarned', sale(invoice), { tx }));
        await connection.query(`INSERT INTO "${schema}".sales VALUES ($1)`, [invoice]).catch(() => undefined);
        if (!enqueueFirst) await refusal(outbox.enqueue('InvoiceEarned', sale(invoice), { tx }));
        await connection.query('COMMIT');
      }
    } finally {
      connection.release();
    }
    expect([await rowsIn(other, 'outbox'), await rowsIn(other, 'sales')]).toEqual([0, 0]);
    await outbox.close();
  });

  it('writes with a query(text, values) adapter on its own database', async () => {
    const outbox = await started();
    const before = await rowsIn(own, 'outbox');
    const connection = await own.connect();
    const tx = { query: (text: string, values?: unknown[]) => connection.query(text, values) };
    try {
      await connection.query('BEGIN');
      await outbox.enqueue('InvoiceEarned', sale('inv-adapter-3'), { tx });
      await connection.query(`INSERT INTO "${schema}".sales VALUES ('inv-adapter-3')`);
      await outbox.enqueue('InvoiceEarned', sale('inv-adapter-4'), { tx });
      await connection.query('COMMIT');
    } finally {
      connection.release();
    }
    expect(await rowsIn(own, 'outbox')).toBe(before + 2);
    await outbox.close();
  });
});
