import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { inboxSql } from '../../src/postgres/inbox-sql.js';
import { outboxSql } from '../../src/postgres/outbox-sql.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A queue table analysed while nothing was pending (an outbox or inbox at rest, when autovacuum
 * usually comes by), then a backlog: every statement that finds its rows by event id must still
 * find them by primary key, not by scanning the partial index of pending rows. Scanned, a drain
 * recorded each batch of outcomes by reading the whole backlog (3.7 ms a batch against 0.6 ms
 * with 8,000 pending). The plans are read with auto_explain, nested statements included.
 */
describeWithPostgres(
  'statements that find rows by id, on a table analysed while nothing was pending',
  (url) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const schema = uniqueName('still_pending');
    const s = `"${schema}"`;
    const backlog = 3_000;
    let client: pg.Client;

    /** The plans of every statement `run` makes, nested ones included (functions' statements). */
    async function plansOf(run: () => Promise<unknown>): Promise<string> {
      const plans: string[] = [];
      const listener = (notice: { message?: string }) => plans.push(notice.message ?? '');
      client.on('notice', listener);
      try {
        await run();
      } finally {
        client.removeListener('notice', listener);
      }
      return plans.join('\n');
    }

    beforeAll(async () => {
      await migrate(pool, { schema });
      const outboxRows = (state: string, from: number, to: number) =>
        pool.query(`INSERT INTO ${s}.outbox (event_id, tenant_id, event_type, envelope, enqueued_at, keys_changes, keys_needs, state)
        SELECT 'o-' || i, 'm', 'InvoiceEarned', '{}'::jsonb, 0, ARRAY['Invoice:' || i], '{}', '${state}'
        FROM generate_series(${from}, ${to}) AS i`);
      const inboxRows = (state: string, from: number, to: number) =>
        pool.query(`INSERT INTO ${s}.inbox_events (event_id, event_type, state, raw_body)
        SELECT 'i-' || i, 'LoyaltyRuleChanged', '${state}', '{}' FROM generate_series(${from}, ${to}) AS i`);
      await outboxRows('delivered', 1, 500);
      await inboxRows('handled', 1, 500);
      await pool.query(`ANALYZE ${s}.outbox`);
      await pool.query(`ANALYZE ${s}.inbox_events`);
      await outboxRows('pending', 501, 500 + backlog);
      await inboxRows('pending', 501, 500 + backlog);
      await pool.query(`UPDATE ${s}.outbox SET claimed_by = 'w' WHERE event_id IN ('o-501', 'o-502')`);
      await pool.query(
        `UPDATE ${s}.inbox_events SET claimed_by = 'w', attempts = 1 WHERE event_id IN ('i-501', 'i-502', 'i-503')`,
      );
      await pool.query(`UPDATE ${s}.inbox_events SET claimed_by = 'receipt' WHERE event_id = 'i-504'`);
      client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`LOAD 'auto_explain'`);
      for (const setting of ['log_min_duration = 0', 'log_nested_statements = on', 'log_level = notice'])
        await client.query(`SET auto_explain.${setting}`);
    });

    afterAll(async () => {
      await client?.end();
      await pool.query(`DROP SCHEMA ${s} CASCADE`);
      await pool.end();
    });

    it('the outbox records outcomes and renews leases by primary key', async () => {
      const sql = outboxSql(s, 'unused');
      const recorded = await plansOf(() =>
        client.query(sql.record, ['w', ['o-501'], ['delivered'], ['{}'], [0]]),
      );
      const renewed = await plansOf(() => client.query(sql.extendLease, ['w', ['o-502'], 60_000]));
      for (const plan of [recorded, renewed]) {
        expect(plan).toContain('outbox_pkey');
        expect(plan).not.toContain('outbox_pending_seq');
      }
    });

    it('the inbox marks, renews and completes by primary key', async () => {
      const sql = inboxSql(s);
      const plans = [
        await plansOf(() => client.query(sql.markHandled, ['i-501', 'w', 1])),
        await plansOf(() => client.query(sql.extendLease, ['w', ['i-502'], 60_000])),
        await plansOf(() => client.query(sql.markDead, ['i-503', 'gave up'])),
        await plansOf(() => client.query(sql.complete, ['i-504'])),
      ];
      for (const plan of plans) {
        expect(plan).toContain('inbox_events_pkey');
        expect(plan).not.toContain('inbox_events_due');
      }
    });
  },
);
