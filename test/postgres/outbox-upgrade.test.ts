import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, PostgresStoreError, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, expect, it } from 'vitest';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { sale } from '../support/outbox-fixtures.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Schema steps 7 and 8 (the enqueue's functions) on a database a previous version migrated: a
 * process of this version that starts before `migrate` ran is told so, with what to run, on every
 * path an enqueue takes; once migrated, the same outbox enqueues.
 */

describeWithPostgres('the enqueue on a database at step 6 or 7', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  // Never drained here: the client points nowhere.
  const client = new LoyaltyClient({
    baseUrl: 'http://127.0.0.1:9',
    apiKey: 'k',
    signingSecret: 'whsec_test',
  });
  afterAll(async () => {
    await client.close();
    await sql.end();
    await pool.end();
  });

  const functions = { 7: 'outbox_enqueue_row', 8: 'outbox_enqueue_allowed' } as const;

  /** A schema at `version`, as a previous version left it: today's without the steps after it. */
  async function previousVersion(schema: string, version: 6 | 7) {
    await migrate(pool, { schema });
    for (const step of [7, 8] as const) {
      if (step <= version) continue;
      const [shipped] = SCHEMA_STEPS.filter((candidate) => candidate.version === step);
      expect(shipped?.statements(`"${schema}"`).join()).toContain(functions[step]);
      await pool.query(`DROP FUNCTION "${schema}".${functions[step]}`);
      await pool.query(`DELETE FROM "${schema}".schema_version WHERE version = ${step}`);
    }
    // Step 9 only replaces step 5's function, under the same signature: a database that has not
    // recorded it stands for one before it.
    await pool.query(`DELETE FROM "${schema}".schema_version WHERE version > 8`);
  }

  it.each([
    [6, [7, 8, 9]],
    [7, [8, 9]],
  ] as const)(
    'at step %i: says NOT_MIGRATED with what to run, then enqueues once migrated (applies %j)',
    async (version, steps) => {
      const schema = uniqueName(`outbox_step${version}`);
      await previousVersion(schema, version);
      const outbox = createOutbox({ client, store: postgresStore(pool, { schema }), pollIntervalMs: 60_000 });
      await outbox.start();
      await outbox.stopTenant('default', 'enqueue only');
      const refusal = (work: Promise<unknown>) =>
        work.then(
          () => 'written',
          (err) => (err instanceof PostgresStoreError ? `${err.code}: ${err.message}` : err),
        );
      const notMigrated = `NOT_MIGRATED: postgresStore enqueue: the outbox of schema "${schema}" is missing: run migrate(db, { schema: '${schema}' }) first`;

      expect(await refusal(outbox.enqueue('InvoiceEarned', sale('inv-1')))).toBe(notMigrated);
      const tx = await pool.connect();
      await tx.query('BEGIN');
      expect(await refusal(outbox.enqueue('InvoiceEarned', sale('inv-2'), { tx }))).toBe(notMigrated);
      await tx.query('ROLLBACK');
      tx.release();
      const pipelined = sql.begin((t) => outbox.enqueue('InvoiceEarned', sale('inv-3'), { tx: t }));
      expect(await refusal(pipelined)).toBe(notMigrated);

      expect((await migrate(pool, { schema })).applied).toEqual(steps);
      await outbox.enqueue('InvoiceEarned', sale('inv-4'));
      await sql.begin((t) => outbox.enqueue('InvoiceEarned', sale('inv-5'), { tx: t }));
      const { rows } = await pool.query(
        `SELECT envelope->'payload'->>'externalInvoiceId' AS invoice FROM "${schema}".outbox ORDER BY seq`,
      );
      expect(rows.map((row) => row.invoice)).toEqual(['inv-4', 'inv-5']);
      await outbox.close();
    },
  );

  it('keeps the enqueue of the version before step 8 writing on a migrated database (rolling deploy)', async () => {
    const schema = uniqueName('outbox_step7_writer');
    await migrate(pool, { schema });
    // The statement a process of the previous version sends, as it shipped (step 7).
    const previousEnqueue = `INSERT INTO "${schema}".outbox (event_id, tenant_id, event_type, envelope, enqueued_at, keys_changes, keys_needs, trace_context)
SELECT * FROM "${schema}".outbox_enqueue_row($1::text, $2::text, $3::text, $4::text::jsonb, $5::bigint, $6::text[], $7::text[],
  $8::text, $9::integer, $10::integer[], $11::integer[], 'always', NULL, NULL)
ON CONFLICT (event_id) DO NOTHING`;
    const row = (eventId: string) => [
      eventId,
      'default',
      'InvoiceEarned',
      JSON.stringify({ eventId }),
      Date.now(),
      ['Invoice:inv-old'],
      [],
      null,
      1,
      [42],
      [1],
    ];
    expect((await pool.query(previousEnqueue, row('old-1'))).rowCount).toBe(1);
    expect((await pool.query(previousEnqueue, row('old-1'))).rowCount).toBe(0);
    const { rows } = await pool.query(`SELECT event_id, state FROM "${schema}".outbox`);
    expect(rows).toEqual([{ event_id: 'old-1', state: 'pending' }]);
  });
});
