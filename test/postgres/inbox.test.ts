import { randomUUID } from 'node:crypto';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { bothDrivers } from './support/both-drivers.js';

describeWithPostgres('postgresInbox', (url) => {
  const { schema, pool, sql } = bothDrivers(url, 'inbox');

  it('on pg, prepares its statements once per connection instead of planning them at every delivery', async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const inbox = postgresInbox(client, { schema });
    for (let i = 0; i < 3; i++) {
      const key = { eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: 'm-1' };
      expect(await inbox.begin(key)).toBe('new');
      await inbox.complete(key);
    }
    const { rows } = await client.query(
      `SELECT statement FROM pg_prepared_statements WHERE name LIKE 'loyalty\\_%' ORDER BY statement`,
    );
    expect(rows.map((row) => row.statement)).toEqual([
      expect.stringContaining(`INSERT INTO "${schema}".inbox_events`),
      expect.stringContaining(`UPDATE "${schema}".inbox_events SET state = 'handled'`),
    ]);
    await client.end();
  });

  it('hands the handler the pg connection inside the transaction: its writes commit with the claim', async () => {
    await pool.query(`CREATE TABLE ${schema}.effects (event_id text)`);
    const inbox = postgresInbox(pool, { schema, transactional: true });
    const committed = { eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: '' };
    const failed = { eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: '' };
    await inbox.transaction(committed, async (tx) => {
      await tx.query(`INSERT INTO ${schema}.effects VALUES ($1)`, [committed.eventId]);
    });
    await expect(
      inbox.transaction(failed, async (tx) => {
        await tx.query(`INSERT INTO ${schema}.effects VALUES ($1)`, [failed.eventId]);
        throw new Error('after the write');
      }),
    ).rejects.toThrow('after the write');
    const { rows } = await pool.query(`SELECT event_id FROM ${schema}.effects`);
    expect(rows).toEqual([{ event_id: committed.eventId }]);
    const claims = await pool.query(
      `SELECT event_id, state FROM ${schema}.inbox_events WHERE event_id = ANY($1)`,
      [[committed.eventId, failed.eventId]],
    );
    expect(claims.rows).toEqual([{ event_id: committed.eventId, state: 'handled' }]);
  });

  it('hands the handler the postgres.js transaction sql: its writes commit with the claim', async () => {
    await sql.unsafe(`CREATE TABLE IF NOT EXISTS ${schema}.effects_js (event_id text)`);
    const inbox = postgresInbox(sql, { schema, transactional: true });
    const key = { eventId: randomUUID(), eventType: 'LoyaltyRuleChanged', tenantId: '' };
    await inbox.transaction(key, async (tx) => {
      await tx`INSERT INTO ${sql(schema)}.effects_js VALUES (${key.eventId})`;
    });
    await expect(inbox.transaction(key, async () => undefined)).resolves.toBe('done');
    expect(await sql.unsafe(`SELECT event_id FROM ${schema}.effects_js`)).toEqual([
      { event_id: key.eventId },
    ]);
  });

  it('deletes done rows older than the retention in small batches, by itself, and keeps the rest', async () => {
    const own = uniqueName('retention');
    await migrate(pool, { schema: own });
    await pool.query(
      `INSERT INTO ${own}.inbox_events (event_id, event_type, state, settled_at)
       SELECT 'old-' || i, 'X', 'handled', now() - interval '26 hours' FROM generate_series(1, 1200) i`,
    );
    await pool.query(
      `INSERT INTO ${own}.inbox_events (event_id, event_type, state, settled_at) VALUES ('recent', 'X', 'handled', now())`,
    );
    const inbox = postgresInbox(pool, { schema: own, cleanupEvery: 1, cleanupBatchSize: 500 });
    const count = async () =>
      Number((await pool.query(`SELECT count(*) FROM ${own}.inbox_events`)).rows[0].count);
    // Each claim starts one batch of at most 500 in the background.
    for (let i = 0; (await count()) > 4 && i < 200; i++) {
      await inbox.begin({ eventId: randomUUID(), eventType: 'X', tenantId: '' });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const left = await pool.query(`SELECT event_id FROM ${own}.inbox_events WHERE event_id NOT LIKE '%-%-%'`);
    expect(left.rows.map((row) => row.event_id)).toEqual(['recent']);
  });
});
