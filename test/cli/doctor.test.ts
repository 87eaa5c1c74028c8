import { Redis } from 'ioredis';
import { migrate } from 'loyalty-partner-sdk/postgres';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  type RealRedisCluster,
  type RealServer,
  startPgBouncer,
  startRedisCluster,
} from '../support/real-servers.js';
import { createSerializableDatabase } from '../support/serializable-database.js';
import { describeWithPostgres, describeWithRedis, uniqueName } from '../support/servers.js';
import { runBin } from './bin.js';

/*
 * The built `loyalty-partner doctor` against real servers (issue 40): a direct PostgreSQL, the
 * same behind PgBouncer in transaction mode (named a transaction pooler, LISTEN said not to work)
 * and in session mode, a database whose default isolation is SERIALIZABLE, a standalone Redis, a
 * three-master Redis Cluster, and the service (the emulator) through the environment.
 */

const cli = (args: string[], options: { env?: Record<string, string> } = {}) => runBin(args, options);

interface Report {
  target: string;
  warnings: boolean;
  checks: { check: string; status: string; found: string; fix?: string }[];
}
const byCheck = (report: Report) => Object.fromEntries(report.checks.map((line) => [line.check, line]));

describeWithPostgres('loyalty-partner doctor --postgres', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  const schema = uniqueName('doctor');
  const bouncers: RealServer[] = [];
  let transactionUrl: string;
  let sessionUrl: string;
  beforeAll(async () => {
    await migrate(pool, { schema });
    const transaction = await startPgBouncer(url, { mode: 'transaction', poolSize: 4 });
    const session = await startPgBouncer(url, { mode: 'session', poolSize: 4 });
    bouncers.push(transaction, session);
    transactionUrl = transaction.url;
    sessionUrl = session.url;
  }, 60_000);
  afterAll(async () => {
    for (const bouncer of bouncers) await bouncer.stop();
    await pool.end();
  });

  it('says all is well for a direct connection to a migrated schema (exit 0)', async () => {
    const { code, stdout, stderr } = await cli(['doctor', '--postgres', url, '--schema', schema]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^ok {4}server: PostgreSQL \d+/m);
    expect(stdout).toMatch(/^ok {4}pooler: none: a direct connection$/m);
    expect(stdout).toMatch(/^ok {4}LISTEN: notifications arrive/m);
    expect(stdout).toMatch(new RegExp(`^ok {4}schema: "${schema}" at version \\d+, this package's$`, 'm'));
    expect(stdout).toMatch(/^ok {4}clock: /m);
    expect(stdout).toMatch(/all well\n$/);
  });

  it('names PgBouncer in transaction mode a transaction pooler, and says LISTEN does not work there (exit 1)', async () => {
    const { code, stdout } = await cli([
      'doctor',
      '--postgres',
      transactionUrl,
      '--schema',
      schema,
      '--json',
    ]);
    expect(code).toBe(1);
    const checks = byCheck(JSON.parse(stdout));
    expect(checks.pooler).toMatchObject({
      status: 'warn',
      found: expect.stringMatching(/transaction pooler/),
    });
    expect(checks.pooler!.fix).toMatch(/prepare: false/);
    expect(checks['prepared statements']).toMatchObject({
      status: 'info',
      found: expect.stringMatching(/do not outlive a transaction/),
    });
    expect(checks.LISTEN).toMatchObject({
      status: 'warn',
      fix: expect.stringMatching(/direct or session-mode/),
    });
    expect(checks.schema!.status).toBe('ok');
  }, 30_000);

  it('tells PgBouncer in session mode from a transaction pooler: LISTEN works there', async () => {
    const { code, stdout } = await cli(['doctor', '--postgres', sessionUrl, '--schema', schema, '--json']);
    const checks = byCheck(JSON.parse(stdout));
    expect(checks.pooler).toMatchObject({ status: 'ok', found: expect.stringMatching(/session mode/) });
    expect(checks['prepared statements']).toMatchObject({ status: 'ok', found: 'kept for the session' });
    expect(checks.LISTEN!.status).toBe('ok');
    expect(code).toBe(0);
  }, 30_000);

  describe('on a database whose default isolation is SERIALIZABLE', () => {
    const database = uniqueName('doctor_serializable');
    let strictUrl: string;
    beforeAll(async () => {
      strictUrl = await createSerializableDatabase(pool, url, database);
    });
    afterAll(() => pool.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));

    it('reports the default isolation, and that the SDK runs its own transactions at read committed', async () => {
      const { code, stdout } = await cli(['doctor', '--postgres', strictUrl, '--json']);
      const checks = byCheck(JSON.parse(stdout));
      expect(checks['default isolation']).toMatchObject({
        status: 'ok',
        found: expect.stringMatching(/^serializable: the SDK's own transactions run at read committed/),
      });
      expect(checks.pooler!.found).toBe('none: a direct connection');
      // Nothing migrated in the new database: the one warning, with what to run.
      expect(checks.schema).toMatchObject({ status: 'warn', found: 'schema "loyalty" is not migrated' });
      expect(code).toBe(1);
    }, 30_000);
  });

  it('says a schema is not migrated, with what to run; never prints the password', async () => {
    const target = new URL(url);
    target.password = 's3cret-pw';
    const { code, stdout } = await cli(['doctor', '--postgres', target.href, '--schema', 'nowhere']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^warn {2}schema: schema "nowhere" is not migrated\n {6}fix: run migrate/m);
    expect(stdout).not.toContain('s3cret-pw');
    expect(stdout).toContain(':***@');
  });

  it('exits 2 on a usage error, and 3 when the server cannot be reached', async () => {
    expect((await cli(['doctor'])).code).toBe(2);
    expect((await cli(['doctor', '--postgres', url, '--redis', 'redis://127.0.0.1:1'])).code).toBe(2);
    const unreachable = await cli(['doctor', '--postgres', 'postgres://app:hunter22@127.0.0.1:1/db']);
    expect(unreachable.code).toBe(3);
    expect(unreachable.stderr).not.toContain('hunter22');
  });

  describe('with the service in the environment', () => {
    let emulator: Emulator;
    let merchant: MerchantCredentials;
    let baseUrl: string;
    beforeAll(async () => {
      emulator = createEmulator();
      ({ url: baseUrl } = await emulator.listen());
      merchant = emulator.createMerchant({ autoConfirmBranches: true });
    });
    afterAll(() => emulator.close());

    it('checks GET /connection, the service clock and the signing secret, printing neither key nor secret', async () => {
      const env = {
        LOYALTY_BASE_URL: baseUrl,
        LOYALTY_API_KEY: merchant.apiKey,
        LOYALTY_SIGNING_SECRET: merchant.signingSecret,
      };
      const { code, stdout } = await cli(['doctor', '--postgres', url, '--schema', schema], { env });
      expect(stdout).toMatch(/^ok {4}signing secret: LOYALTY_SIGNING_SECRET is set$/m);
      expect(stdout).toMatch(/^ok {4}service clock: /m);
      expect(stdout).toMatch(/^ok {4}GET \/connection: 200/m);
      expect(stdout).not.toContain(merchant.apiKey);
      expect(stdout).not.toContain(merchant.signingSecret);
      expect(code).toBe(0);

      const wrongKey = await cli(['doctor', '--postgres', url, '--schema', schema], {
        env: { ...env, LOYALTY_API_KEY: 'pk_wrong_key_000' },
      });
      expect(wrongKey.code).toBe(1);
      expect(wrongKey.stdout).toMatch(/^warn {2}GET \/connection: refused/m);
    });
  });
});

describeWithRedis('loyalty-partner doctor --redis', (url) => {
  it('reports the server, cluster mode, eviction and persistence of a standalone Redis', async () => {
    const { code, stdout } = await cli(['doctor', '--redis', url, '--json']);
    const report = JSON.parse(stdout) as Report;
    const checks = byCheck(report);
    expect(checks.server).toMatchObject({
      status: 'ok',
      found: expect.stringMatching(/^(Redis|Valkey) \d+/),
    });
    expect(checks['cluster mode']).toMatchObject({ status: 'ok', found: expect.stringMatching(/^off/) });
    expect(checks.eviction).toMatchObject({ status: 'ok', found: 'maxmemory-policy noeviction' });
    // The test server runs without persistence (--save '' --appendonly no): said, with the fix.
    expect(checks.persistence).toMatchObject({ status: 'warn', fix: expect.stringMatching(/appendonly/) });
    expect(code).toBe(1);
  });
});

describeWithRedis('loyalty-partner doctor --redis on a three-master Redis Cluster', () => {
  let cluster: RealRedisCluster;
  const nodes: Redis[] = [];
  beforeAll(async () => {
    cluster = await startRedisCluster();
    for (const { host, port } of cluster.nodes) nodes.push(new Redis(port, host));
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) node.disconnect();
    await cluster?.stop();
  });
  const doctor = async (url: string) => {
    const { code, stdout } = await cli(['doctor', '--redis', url, '--json']);
    return { code, report: JSON.parse(stdout) as Report };
  };

  it('says cluster mode, and checks the eviction policy and persistence of every master', async () => {
    // One master of three evicts: named, the other two said once.
    await nodes[1]!.config('SET', 'maxmemory-policy', 'allkeys-lru');
    const { code, report } = await doctor(cluster.urls[0]!);
    await nodes[1]!.config('SET', 'maxmemory-policy', 'noeviction');
    const [, second, third] = cluster.urls.map((url) => url.replace('redis://', ''));
    const lines = report.checks.map(({ check, status, found }) => ({ check, status, found }));
    expect(lines[1]).toEqual({
      check: 'cluster mode',
      status: 'info',
      found: expect.stringMatching(/^on, 3 masters: give the inbox an ioredis Cluster/),
    });
    expect(lines.filter((line) => line.check === 'eviction')).toEqual(
      expect.arrayContaining([
        { check: 'eviction', status: 'ok', found: expect.stringMatching(/^maxmemory-policy noeviction \(/) },
        {
          check: 'eviction',
          status: 'warn',
          found: expect.stringMatching(new RegExp(`^maxmemory-policy allkeys-lru: .* \\(${second}\\)$`)),
        },
      ]),
    );
    const kept = lines.find((line) => line.check === 'eviction' && line.status === 'ok')!;
    expect(kept.found).not.toContain(second);
    expect(kept.found).toContain(third);
    // The cluster runs without persistence (--save '' --appendonly no) on every master.
    expect(lines.filter((line) => line.check === 'persistence')).toEqual([
      {
        check: 'persistence',
        status: 'warn',
        found: 'none: a restart forgets every delivery, claim and done marker (all 3 masters)',
      },
    ]);
    expect(code).toBe(1);
  }, 30_000);

  it('says which master it cannot reach, and that its settings are not checked', async () => {
    // The first master announces a port where nothing listens: its own CLUSTER NODES says so.
    const nowhere = await freePort();
    await nodes[0]!.config('SET', 'cluster-announce-port', String(nowhere));
    const { code, report } = await doctor(cluster.urls[0]!);
    await nodes[0]!.config('SET', 'cluster-announce-port', '0');
    const checks = byCheck(report);
    expect(checks['cluster nodes']).toMatchObject({
      status: 'warn',
      found: expect.stringMatching(
        new RegExp(
          `^cannot reach 127\\.0\\.0\\.1:${nowhere} .*: its eviction policy and persistence are not checked$`,
        ),
      ),
    });
    expect(checks.persistence!.found).toMatch(/\(127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+\)$/);
    expect(code).toBe(1);
  }, 30_000);
});
