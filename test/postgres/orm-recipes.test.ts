import { drizzle } from 'drizzle-orm/node-postgres';
import { numeric, pgTable, text } from 'drizzle-orm/pg-core';
import { drizzle as drizzleOnPostgresJs } from 'drizzle-orm/postgres-js';
import { CompiledQuery, Kysely, PostgresDialect } from 'kysely';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, type SharedOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, type PostgresOutboxTx, postgresInbox, postgresStore } from 'loyalty-partner-sdk/postgres';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';

type PgQuery = (text: string, values?: unknown[]) => Promise<unknown>;

/*
 * The README's recipes for passing an ORM's transaction to `enqueue({ tx })` ("From Drizzle,
 * Kysely and Prisma"), run as written against a real PostgreSQL and the emulator: the sale and
 * its event commit together or not at all, and what commits is credited once. (Prisma's client is
 * generated from a schema by its own tooling: not run here.)
 */

describeWithPostgres('the README’s ORM recipes for enqueue({ tx })', (url) => {
  const schema = uniqueName('orm');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  let emulator: Emulator;
  let merchant: MerchantCredentials;
  let client: LoyaltyClient;
  let outbox: SharedOutbox<PostgresOutboxTx>;

  beforeAll(async () => {
    emulator = createEmulator();
    const { url: baseUrl } = await emulator.listen();
    merchant = emulator.createMerchant({ autoConfirmBranches: true });
    client = new LoyaltyClient({ baseUrl, apiKey: merchant.apiKey, signingSecret: merchant.signingSecret });
    await client.send('BranchSynced', { externalBranchId: 'branch-olaya', name: 'Olaya', isActive: true });
    await client.send('CustomerSynced', { externalCustomerId: 'cust-1001', phone: '+966500001001' });
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE "${schema}".sales (
      invoice_id text PRIMARY KEY, customer_id text NOT NULL, total numeric NOT NULL)`);
    outbox = createOutbox({
      client,
      store: postgresStore(pool, { schema }),
      defaultTenantId: merchant.tenantId,
      pollIntervalMs: 10,
    });
    await outbox.start();
  });
  afterAll(async () => {
    await outbox.close();
    await client.close();
    await emulator.close();
    await sql.end();
    await pool.end();
  });

  // Unqualified, as in the README: the Drizzle recipes point search_path at the test's schema,
  // Kysely names it (withSchema).
  const sales = pgTable('sales', {
    invoiceId: text('invoice_id').primaryKey(),
    customerId: text('customer_id').notNull(),
    total: numeric('total').notNull(),
  });
  const earned = (invoiceId: string, customerId: string, total: number) =>
    ({
      externalInvoiceId: invoiceId,
      externalCustomerId: customerId,
      externalBranchId: 'branch-olaya',
      subtotalAfterDiscountBeforeVat: total,
      earnType: 'Points',
      channel: 'Pos',
    }) as const;

  class RollBack extends Error {}
  // What Kysely ran: the enqueue through its transaction is one statement, after the sale's INSERT.
  const kyselyStatements: string[] = [];
  const recipes: Record<string, (invoiceId: string, rollBack: boolean) => Promise<unknown>> = {
    'Drizzle on node-postgres': async (invoiceId, rollBack) => {
      const tx = await pool.connect();
      try {
        await tx.query(`SET search_path TO "${schema}"`);
        await tx.query('BEGIN');
        await drizzle({ client: tx })
          .insert(sales)
          .values({ invoiceId, customerId: 'cust-1001', total: '40' });
        await outbox.enqueue('InvoiceEarned', earned(invoiceId, 'cust-1001', 40), { tx });
        if (rollBack) throw new RollBack();
        await tx.query('COMMIT');
      } catch (err) {
        await tx.query('ROLLBACK');
        throw err;
      } finally {
        await tx.query('RESET search_path');
        tx.release();
      }
    },
    'Drizzle on postgres.js': (invoiceId, rollBack) => {
      const db = drizzleOnPostgresJs({ client: sql });
      return sql.begin(async (tx) => {
        await tx.unsafe(`SET LOCAL search_path TO "${schema}"`);
        const sale = db.insert(sales).values({ invoiceId, customerId: 'cust-1001', total: '40' }).toSQL();
        await tx.unsafe(sale.sql, sale.params as never[]);
        await outbox.enqueue('InvoiceEarned', earned(invoiceId, 'cust-1001', 40), { tx });
        if (rollBack) throw new RollBack();
      });
    },
    Kysely: (invoiceId, rollBack) => {
      interface Database {
        sales: { invoice_id: string; customer_id: string; total: string };
      }
      const kysely = new Kysely<Database>({
        dialect: new PostgresDialect({ pool }),
        log: (event) => {
          kyselyStatements.push(event.query.sql);
        },
      }).withSchema(schema);
      return kysely.transaction().execute(async (trx) => {
        await trx
          .insertInto('sales')
          .values({ invoice_id: invoiceId, customer_id: 'cust-1001', total: '40' })
          .execute();
        await outbox.enqueue('InvoiceEarned', earned(invoiceId, 'cust-1001', 40), {
          tx: {
            query: (text: string, values: unknown[] = []) =>
              trx.executeQuery(CompiledQuery.raw(text, values)),
          },
        });
        if (rollBack) throw new RollBack();
      });
    },
  };

  it.each(Object.keys(recipes))('%s: the sale and its event commit together, or not at all', async (name) => {
    const recipe = recipes[name]!;
    const slug = name.toLowerCase().replace(/[^a-z]+/g, '-');
    const committed = `inv-${slug}-committed`;
    const rolledBack = `inv-${slug}-rolled-back`;
    await recipe(committed, false);
    await expect(recipe(rolledBack, true)).rejects.toBeInstanceOf(RollBack);

    const stored = async (invoiceId: string) =>
      (
        await pool.query(
          `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE envelope->'payload'->>'externalInvoiceId' = $1`,
          [invoiceId],
        )
      ).rows[0].n;
    expect(await stored(committed)).toBe(1);
    expect(await stored(rolledBack)).toBe(0);
    const soldRows = await pool.query(
      `SELECT invoice_id FROM "${schema}".sales WHERE invoice_id = ANY ($1)`,
      [[committed, rolledBack]],
    );
    expect(soldRows.rows.map((row) => row.invoice_id)).toEqual([committed]);

    if (name === 'Kysely') {
      // Each sale: the sale's INSERT, then the enqueue's one statement (the transaction has written).
      const statements = kyselyStatements.filter((text) => !/^(begin|commit|rollback)$/i.test(text));
      expect(statements.map((text) => (/outbox/.test(text) ? 'enqueue' : 'sale'))).toEqual([
        'sale',
        'enqueue',
        'sale',
        'enqueue',
      ]);
    }
    const credited = () =>
      emulator.merchant(merchant.tenantId).invoices.find((i) => i.externalInvoiceId === committed);
    const deadline = Date.now() + 10_000;
    while (!credited()?.credited && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(credited()?.credited).toBe(true);
  });
});

/*
 * The README's recipes for a transactional inbox's handler (Postgres stores, "From Drizzle,
 * Kysely and Prisma"): the ORM's query, as SQL text and parameters, runs in the claim's
 * transaction, delivered over real HTTP with a real signature.
 */
describeWithPostgres('the README’s ORM recipes for a transactional inbox', (url) => {
  const schema = uniqueName('orm_inbox');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  beforeAll(async () => {
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE "${schema}".earn_rules_log (event_id text PRIMARY KEY)`);
  });
  afterAll(() => pool.end());

  // Unqualified, as in the README: Drizzle's handler points search_path at the test's schema,
  // Kysely names it (withSchema).
  const earnRulesLog = pgTable('earn_rules_log', { eventId: text('event_id').primaryKey() });
  interface Database {
    earn_rules_log: { event_id: string };
  }
  const kysely = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }).withSchema(schema);
  const db = drizzle({ client: pool });
  const writers: Record<string, (eventId: string, tx: { query: PgQuery }) => Promise<unknown>> = {
    Drizzle: async (eventId, tx) => {
      await tx.query(`SET LOCAL search_path TO "${schema}"`, []);
      const { sql, params } = db.insert(earnRulesLog).values({ eventId }).toSQL();
      return tx.query(sql, params);
    },
    Kysely: (eventId, tx) => {
      const query = kysely.insertInto('earn_rules_log').values({ event_id: eventId }).compile();
      return tx.query(query.sql, [...query.parameters]);
    },
  };

  it.each(Object.keys(writers))('%s: the handler’s row commits with the claim, once', async (name) => {
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema, transactional: true }),
      handlers: {
        async LoyaltyRuleChanged(event, ctx) {
          await writers[name]!(event.eventId, ctx.tx);
        },
      },
    });
    const http = await serveOverHttp(receiver);
    try {
      const event = outboundEvent('LoyaltyRuleChanged');
      const delivery = signedDelivery(event);
      expect((await http.post(delivery)).status).toBe(200);
      // The redelivery is answered from the inbox: the handler does not run again.
      expect((await http.post(delivery)).status).toBe(200);
      const { rows } = await pool.query(
        `SELECT event_id FROM "${schema}".earn_rules_log WHERE event_id = $1`,
        [event.eventId],
      );
      expect(rows).toHaveLength(1);
    } finally {
      await http.close();
    }
  });
});
