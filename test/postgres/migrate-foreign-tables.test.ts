import { migrate, PostgresStoreError, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { createdTables } from '../../src/postgres/schema/created-tables.js';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { rejectionOf } from '../support/rejection.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, resolveSecrets, signedDelivery } from '../webhooks/support/deliveries.js';

/*
 * `migrate` creates its tables IF NOT EXISTS. A table of the same name that someone else made in
 * the schema used to pass as migrated, and every delivery then got 503. Now it is refused, naming
 * the table and what it lacks; and PostgreSQL's own schemas are refused as a place for the SDK.
 */

const codeOf = (promise: Promise<unknown>) => rejectionOf(promise, PostgresStoreError);

describeWithPostgres('migrate into a schema that is not its own', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 3 });
  afterAll(async () => {
    await pool.end();
  });

  it('refuses a pre-existing inbox table without the columns the receiver needs, and creates nothing', async () => {
    const schema = uniqueName('foreign_inbox');
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE "${schema}".inbox (id int PRIMARY KEY, payload jsonb)`);

    const err = await codeOf(migrate(pool, { schema }));
    expect(err.code).toBe('INCOMPATIBLE_SCHEMA');
    expect(err.message).toContain('"inbox"');
    expect(err.message).toContain('event_id');

    const { rows } = await pool.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual(['inbox']);
  });

  it('refuses a pre-existing outbox table too (every table of every step is checked)', async () => {
    const schema = uniqueName('foreign_outbox');
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`CREATE TABLE "${schema}".outbox (seq bigint, event_id text)`);
    const err = await codeOf(migrate(pool, { schema }));
    expect([err.code, err.message.includes('"outbox"')]).toEqual(['INCOMPATIBLE_SCHEMA', true]);
  });

  it('reads every table the steps create, with its columns', () => {
    const tables = createdTables(SCHEMA_STEPS.flatMap((step) => step.statements('"loyalty"')));
    const inbox = tables.find((table) => table.table === 'inbox');
    expect(inbox?.columns).toEqual(expect.arrayContaining(['event_id', 'event_type', 'tenant_id', 'status']));
    expect(tables.map((table) => table.table)).toEqual(expect.arrayContaining(['inbox', 'rules', 'outbox']));
    for (const table of tables) expect(table.columns.length).toBeGreaterThan(1);
  });

  it('still migrates a schema it made itself, again and again', async () => {
    const schema = uniqueName('own');
    await migrate(pool, { schema });
    expect((await migrate(pool, { schema })).applied).toEqual([]);
    const receiver = createReceiver({
      secrets: resolveSecrets,
      inbox: postgresInbox(pool, { schema }),
      handlers: { LoyaltyRuleChanged: () => undefined },
    });
    expect((await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')))).status).toBe(200);
  });

  for (const schema of ['pg_catalog', 'information_schema', 'pg_toast', 'pg_mine']) {
    it(`refuses PostgreSQL's own schema ${schema} for migrate and for the stores`, async () => {
      const err = await codeOf(migrate(pool, { schema }));
      expect(err.code).toBe('INVALID_SCHEMA');
      expect(err.message).toContain('PostgreSQL itself');
      expect(() => postgresInbox(pool, { schema })).toThrow(PostgresStoreError);
    });
  }
});
