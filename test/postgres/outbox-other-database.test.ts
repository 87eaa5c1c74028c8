import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, OutboxTransactionError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * `enqueue({ tx })` with a transaction on another database, one migrated alike (the wrong
 * DATABASE_URL, a test database): the event used to commit there, where this outbox never drains.
 * It is refused now for a pg client (checked once per connection), and nothing of that
 * transaction commits; a transaction on the store's own database still writes. A postgres.js
 * transaction `sql` and a query adapter name no lasting connection and are not checked.
 */

const sale = (invoice: string) => ({
  externalInvoiceId: invoice,
  externalCustomerId: 'cust-1',
  externalBranchId: 'branch-1',
  subtotalAfterDiscountBeforeVat: 40,
  earnType: 'Points' as const,
  channel: 'Pos' as const,
});

describeWithPostgres('enqueue({ tx }) on another database', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  const schema = uniqueName('outbox_db');
  const otherName = uniqueName('other_db');
  const otherUrl = url.replace(/\/[^/]*$/, `/${otherName}`);
  let own: pg.Pool;
  let other: pg.Pool;
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
  });
  afterAll(async () => {
    await client.close();
    await other.end();
    await own.end();
    await admin.query(`DROP DATABASE ${otherName} WITH (FORCE)`);
    await admin.end();
  });

  const started = async () => {
    const outbox = createOutbox({ client, store: postgresStore(own, { schema }), defaultTenantId: 't-1' });
    await outbox.start();
    return outbox;
  };
  const rowsIn = async (pool: pg.Pool, table: string) =>
    (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0].n as number;
  const refusal = async (promise: Promise<unknown>) => {
    const err = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OutboxTransactionError);
    expect((err as OutboxTransactionError).code).toBe('OTHER_DATABASE');
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

  it('writes with a transaction on its own database, checking the connection once', async () => {
    const outbox = await started();
    const tx = await own.connect();
    const texts: string[] = [];
    const query = tx.query.bind(tx) as (...args: unknown[]) => Promise<unknown>;
    // Counts what the outbox sends on the caller's client.
    (tx as unknown as { query: (...args: unknown[]) => Promise<unknown> }).query = (...args: unknown[]) => {
      const [first] = args;
      texts.push(typeof first === 'string' ? first : String((first as { text?: string }).text));
      return query(...args);
    };
    try {
      for (const invoice of ['inv-5', 'inv-6', 'inv-7']) {
        await tx.query('BEGIN');
        await outbox.enqueue('InvoiceEarned', sale(invoice), { tx });
        await tx.query('COMMIT');
      }
    } finally {
      tx.release();
    }
    expect(texts.filter((text) => text.includes('enqueue_on_another_database'))).toHaveLength(1);
    expect(await rowsIn(own, 'outbox')).toBe(3);
    await outbox.close();
  });
});
