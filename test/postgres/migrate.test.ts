import { migrate } from 'loyalty-partner-sdk/postgres';
import { expect, it } from 'vitest';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { expectOneMigrator, migrateAtOnce, useReceiverBundle } from './support/receiver-processes.js';

const LATEST = Math.max(...SCHEMA_STEPS.map((step) => step.version));

describeWithPostgres('migrate', (url) => {
  const { pool, bundle } = useReceiverBundle(url, 3);

  const tables = async (schema: string) =>
    (
      await pool.query(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1',
        [schema],
      )
    ).rows.map((row) => row.table_name);

  it('run by 8 processes at once (pg and postgres.js) succeeds everywhere and leaves one schema', async () => {
    const schema = uniqueName('migrate8');
    // All connected first, then all told to go together.
    const targets = Array.from({ length: 8 }, (_, i) => [i % 2 ? 'postgres.js' : 'pg', url]);
    // Exactly one process applied the steps; the others found them done.
    expectOneMigrator(await migrateAtOnce(bundle(), schema, targets));
    const versions = await pool.query(`SELECT version FROM ${schema}.schema_version ORDER BY version`);
    expect(versions.rows.map((row) => row.version)).toEqual(SCHEMA_STEPS.map((s) => s.version));
    expect(await tables(schema)).toEqual(expect.arrayContaining(['inbox_events', 'rules', 'schema_version']));
  }, 60_000);

  it('is idempotent: a second run applies nothing and changes nothing', async () => {
    const schema = uniqueName('again');
    expect(await migrate(pool, { schema })).toEqual({
      version: LATEST,
      applied: SCHEMA_STEPS.map((s) => s.version),
    });
    const before = await tables(schema);
    expect(await migrate(pool, { schema })).toEqual({ version: LATEST, applied: [] });
    expect(await tables(schema)).toEqual(before);
  });

  it('applies only the steps a database has not seen, and refuses a schema newer than the package', async () => {
    const schema = uniqueName('upgrade');
    await migrate(pool, { schema });
    await pool.query(
      `INSERT INTO ${schema}.schema_version (version, description) VALUES ($1, 'from the future')`,
      [LATEST + 1],
    );
    await expect(migrate(pool, { schema })).rejects.toMatchObject({
      name: 'PostgresStoreError',
      message: expect.stringContaining('upgrade loyalty-partner-sdk'),
    });
  });
});
