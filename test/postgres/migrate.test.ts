import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { migrate } from 'loyalty-partner-sdk/postgres';
import { expect, it } from 'vitest';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { useReceiverBundle } from './support/receiver-processes.js';

const CHILD = fileURLToPath(new URL('./fixtures/migrate-child.mjs', import.meta.url));
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
    const children = Array.from({ length: 8 }, (_, i) => {
      const child = spawn(process.execPath, [CHILD, bundle(), i % 2 ? 'postgres.js' : 'pg', url, schema], {
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
      });
      return { child, out: () => out, err: () => err, exit: once(child, 'exit') };
    });
    // All connected first, then all told to go together.
    while (!children.every((c) => c.out().includes('READY') || c.child.exitCode !== null)) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const c of children) c.child.stdin.end('go\n');
    const codes = await Promise.all(children.map((c) => c.exit.then(([code]) => code)));
    expect(children.map((c) => c.err())).toEqual(Array(8).fill(''));
    expect(codes).toEqual(Array(8).fill(0));
    const results = children.map((c) => JSON.parse(c.out().split('\n')[1]!));
    // Exactly one process applied the steps; the others found them done.
    expect(results.filter((r) => r.applied.length > 0)).toEqual([
      { version: LATEST, applied: SCHEMA_STEPS.map((s) => s.version) },
    ]);
    expect(results.every((r) => r.version === LATEST)).toBe(true);
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
