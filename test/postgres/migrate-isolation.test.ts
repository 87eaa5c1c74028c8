import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RealServer, startPgBouncer } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { expectOneMigrator, migrateAtOnce, useReceiverBundle } from './support/receiver-processes.js';

/*
 * `migrate` where users deploy: a database whose default isolation is SERIALIZABLE, a role whose
 * `lock_timeout` is 50 ms, and half of the processes going through PgBouncer in transaction mode.
 * Eight processes migrate at once; every one succeeds and exactly one applies the steps.
 */

describeWithPostgres('migrate on a strict database', (url) => {
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const database = uniqueName('strict');
  const role = uniqueName('impatient');
  const { bundle } = useReceiverBundle(url, 1);
  let bouncer: RealServer;
  let direct: string;
  let pooled: string;

  beforeAll(async () => {
    await admin.query(`CREATE ROLE ${role} LOGIN SUPERUSER`);
    await admin.query(`ALTER ROLE ${role} SET lock_timeout = '50ms'`);
    await admin.query(`CREATE DATABASE ${database} OWNER ${role}`);
    await admin.query(`ALTER DATABASE ${database} SET default_transaction_isolation = 'serializable'`);
    const target = new URL(url);
    target.username = role;
    target.pathname = `/${database}`;
    direct = target.href;
    bouncer = await startPgBouncer(direct, { mode: 'transaction', poolSize: 4 });
    pooled = bouncer.url;
  }, 60_000);
  afterAll(async () => {
    // Every client of the database is gone (the children exited) before it is dropped.
    await bouncer?.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it('eight processes (pg and postgres.js, direct and through PgBouncer) migrate at once under SERIALIZABLE and lock_timeout 50ms: all succeed', async () => {
    const check = new pg.Client({ connectionString: direct });
    await check.connect();
    const settings = await check.query(
      "SELECT current_setting('default_transaction_isolation') AS isolation, current_setting('lock_timeout') AS lock_timeout",
    );
    await check.end();
    expect(settings.rows[0]).toEqual({ isolation: 'serializable', lock_timeout: '50ms' });

    const schema = 'loyalty';
    const targets = Array.from({ length: 8 }, (_, i) => {
      const throughPooler = i % 4 >= 2;
      const driver = i % 2 ? 'postgres.js' : 'pg';
      return throughPooler ? [driver, pooled, 'pooled'] : [driver, direct];
    });
    // Exactly one process applied the steps; the others found them done.
    expectOneMigrator(await migrateAtOnce(bundle(), schema, targets));
  }, 120_000);
});
