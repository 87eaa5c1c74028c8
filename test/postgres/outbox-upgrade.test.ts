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
 * Schema step 7 (the enqueue's function) on a database the previous version migrated: a process
 * of this version that starts before `migrate` ran is told so, with what to run, on every path an
 * enqueue takes; once migrated, the same outbox enqueues.
 */

describeWithPostgres('schema step 7 (outbox_enqueue_row) on a database at step 6', (url) => {
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

  /** A schema at version 6, as the previous version left it: today's without step 7. */
  async function previousVersion(schema: string) {
    await migrate(pool, { schema });
    const [step7] = SCHEMA_STEPS.filter((step) => step.version === 7);
    expect(step7?.statements(`"${schema}"`).join()).toContain('outbox_enqueue_row');
    await pool.query(`DROP FUNCTION "${schema}".outbox_enqueue_row`);
    await pool.query(`DELETE FROM "${schema}".schema_version WHERE version = 7`);
  }

  it('says NOT_MIGRATED with what to run, then enqueues once migrated', async () => {
    const schema = uniqueName('outbox_step7');
    await previousVersion(schema);
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

    expect((await migrate(pool, { schema })).applied).toEqual([7]);
    await outbox.enqueue('InvoiceEarned', sale('inv-4'));
    await sql.begin((t) => outbox.enqueue('InvoiceEarned', sale('inv-5'), { tx: t }));
    const { rows } = await pool.query(
      `SELECT envelope->'payload'->>'externalInvoiceId' AS invoice FROM "${schema}".outbox ORDER BY seq`,
    );
    expect(rows.map((row) => row.invoice)).toEqual(['inv-4', 'inv-5']);
    await outbox.close();
  });
});
