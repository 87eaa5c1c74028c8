import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { renderSchemaSql } from '../../src/postgres/schema/render.js';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

// The build writes this text as dist/postgres/schema.sql (test/postgres/no-driver-import.test.ts).
const SQL = renderSchemaSql('loyalty');

it('the shipped schema.sql is written for schema "loyalty" and records every step', () => {
  expect(SQL).toMatch(/^CREATE SCHEMA IF NOT EXISTS "loyalty";$/m);
  for (const step of SCHEMA_STEPS) expect(SQL).toContain(`VALUES (${step.version}, '`);
});

describeWithPostgres('the shipped schema.sql', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const viaFile = uniqueName('file');
  const viaMigrate = uniqueName('migrate');
  const columns = async (schema: string) =>
    (
      await pool.query(
        `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
         WHERE table_schema = $1 ORDER BY table_name, column_name`,
        [schema],
      )
    ).rows.map((row) => ({ ...row, column_default: row.column_default?.replaceAll(viaFile, viaMigrate) }));

  beforeAll(async () => {
    await pool.query(SQL.replaceAll('"loyalty"', `"${viaFile}"`));
    await migrate(pool, { schema: viaMigrate });
  });
  afterAll(() => pool.end());

  it('creates the same tables as migrate, and migrate then finds nothing to do', async () => {
    expect(await columns(viaFile)).toEqual(await columns(viaMigrate));
    expect((await columns(viaFile)).length).toBeGreaterThan(0);
    expect((await migrate(pool, { schema: viaFile })).applied).toEqual([]);
  });
});
