import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { startBin } from './bin.js';
import { cli } from './run.js';

/**
 * Issue 42, items 8 to 11: an action and its audit row commit together or not at all; the audit
 * says the state it came from; stats are paged (busiest first, a filter, a total); a password in
 * a connection URL is never printed.
 */
describeWithPostgres('loyalty-partner outbox and inbox actions, audited in the same transaction', (url) => {
  const schema = uniqueName('ops_tx');
  const role = uniqueName('ops_no_audit');
  const password = 'pw-Secret-9f2c';
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const flags = ['--postgres', url, '--schema', schema];
  let roleUrl: string;

  const insertOutbox = (eventId: string, tenantId: string, state: string) =>
    pool.query(
      `INSERT INTO "${schema}".outbox (event_id, tenant_id, event_type, envelope, enqueued_at, state, keys_changes, keys_needs)
       VALUES ($1, $2, 'InvoiceEarned', '{}'::jsonb, $3, $4, '{}', '{}')`,
      [eventId, tenantId, Date.now(), state],
    );
  const outboxState = async (eventId: string) =>
    (await pool.query(`SELECT state FROM "${schema}".outbox WHERE event_id = $1`, [eventId])).rows[0]?.state;
  const auditRows = async (target: string) =>
    (await pool.query(`SELECT action, detail FROM "${schema}".audit WHERE target = $1`, [target])).rows;

  beforeAll(async () => {
    await migrate(pool, { schema });
    await pool.query(`CREATE ROLE "${role}" LOGIN PASSWORD '${password}'`);
    await pool.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
    await pool.query(`GRANT SELECT, UPDATE, DELETE ON ALL TABLES IN SCHEMA "${schema}" TO "${role}"`);
    await pool.query(`GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA "${schema}" TO "${role}"`);
    const parsed = new URL(url);
    parsed.username = role;
    parsed.password = password;
    roleUrl = parsed.toString();
  });
  afterAll(async () => {
    await pool.query(`DROP OWNED BY "${role}"`).catch(() => {});
    await pool.query(`DROP ROLE IF EXISTS "${role}"`).catch(() => {});
    await pool.end();
  });

  it('redeliver under a role that may not write the audit table: nothing changes, and the CLI says why', async () => {
    await insertOutbox('evt-no-audit', 'cafe-a', 'dead');
    const { code, stdout, stderr } = await cli([
      'outbox',
      'redeliver',
      'evt-no-audit',
      '--postgres',
      roleUrl,
      '--schema',
      schema,
    ]);
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/permission denied for table audit/);
    expect(stderr).toContain('nothing was changed');
    expect(stderr).not.toContain(password);
    expect(await outboxState('evt-no-audit')).toBe('dead');
    expect(await auditRows('evt-no-audit')).toEqual([]);
  });

  it('redeliver and discard write their audit row with the state the event came from', async () => {
    await insertOutbox('evt-parked', 'cafe-a', 'parked');
    await insertOutbox('evt-dead', 'cafe-a', 'dead');
    expect((await cli(['outbox', 'redeliver', 'evt-parked', '--actor', 'ana', ...flags])).code).toBe(0);
    expect((await cli(['outbox', 'discard', 'evt-dead', '--actor', 'ana', ...flags])).code).toBe(0);
    expect(await outboxState('evt-parked')).toBe('pending');
    expect(await outboxState('evt-dead')).toBeUndefined();
    expect(await auditRows('evt-parked')).toEqual([
      { action: 'outbox.redeliver', detail: expect.objectContaining({ from: 'parked', via: 'cli' }) },
    ]);
    expect(await auditRows('evt-dead')).toEqual([
      { action: 'outbox.discard', detail: expect.objectContaining({ from: 'dead', via: 'cli' }) },
    ]);
  });

  it('inbox replay under that role: the delivery stays parked, no audit row, and the CLI says why', async () => {
    const inbox = postgresInbox(pool, { schema });
    await inbox.store(
      {
        eventId: 'dlv-no-audit',
        eventType: 'RewardRedeemed',
        tenantId: 'cafe-a',
        rawBody: '{}',
        correlationId: 'corr-1',
        signatureTimestamp: Math.floor(Date.now() / 1000),
        secretIndex: 0,
        receivedAt: Date.now(),
      },
      'parked',
      'no handler for RewardRedeemed in this version',
    );
    const { code, stderr } = await cli([
      'inbox',
      'replay',
      'dlv-no-audit',
      '--postgres',
      roleUrl,
      '--schema',
      schema,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/permission denied for table audit/);
    expect(stderr).not.toContain(password);
    const [record] = await inbox.list({ state: 'parked', limit: 10 });
    expect(record?.eventId).toBe('dlv-no-audit');
    expect(await auditRows('dlv-no-audit')).toEqual([]);
    expect((await cli(['inbox', 'replay', 'dlv-no-audit', '--actor', 'ana', ...flags])).code).toBe(0);
    expect(await auditRows('dlv-no-audit')).toEqual([
      { action: 'inbox.replay', detail: expect.objectContaining({ from: 'parked' }) },
    ]);
  });

  it('outbox stats with 100,000 tenants prints the busiest few, a filter and the total', async () => {
    await pool.query(
      `INSERT INTO "${schema}".outbox (event_id, tenant_id, event_type, envelope, enqueued_at, state, keys_changes, keys_needs)
       SELECT 'bulk-' || i, 'tenant-' || i, 'InvoiceEarned', '{}'::jsonb, 1, 'dead', '{}', '{}' FROM generate_series(1, 100000) i`,
    );
    for (const i of [1, 2, 3]) await insertOutbox(`busy-${i}`, 'tenant-busy', 'dead');
    const table = await cli(['outbox', 'stats', '--limit', '5', ...flags]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trim().split('\n');
    expect(lines.length).toBeLessThan(12);
    expect(lines[1]).toMatch(/^tenant-busy\s+0\s+0\s+3\s/);
    expect(table.stdout).toMatch(/5 of 100,002 tenants shown, busiest first/);
    const json = JSON.parse(
      (await cli(['outbox', 'stats', '--json', '--tenant', 'tenant-7', ...flags])).stdout,
    );
    expect(json.tenants).toEqual([{ tenantId: 'tenant-7', states: { dead: 1 }, oldestPendingAt: null }]);
    expect(json.totalTenants).toBe(1);
    const defaults = JSON.parse((await cli(['outbox', 'stats', '--json', ...flags])).stdout);
    expect(defaults.tenants).toHaveLength(50);
    expect(defaults.totalTenants).toBe(100_002);
  });

  it('never prints a password given as ?password= or user:pass@, in an error or a heading', async () => {
    const hidden = 'Qz7-never-shown';
    const unreachable = `postgres://app:${hidden}@127.0.0.1:1/db?password=${hidden}x&sslmode=disable`;
    const failed = await cli(['outbox', 'stats', '--postgres', unreachable]);
    expect(failed.code).toBe(3);
    expect(failed.stderr).not.toContain(hidden);
    const redis = await cli(['inbox', 'stats', '--redis', `redis://127.0.0.1:1/0?password=${hidden}`]);
    expect(redis.code).toBe(3);
    expect(redis.stderr).toMatch(/cannot reach Redis at redis:\/\/127\.0\.0\.1:1\/0\?password=\*\*\*/);
    expect(redis.stderr).not.toContain(hidden);
  });

  it("never shows a ?password= in the dashboard's banner, page source or JSON", async () => {
    const hidden = 'Dq4-never-shown';
    const withPassword = new URL(url);
    withPassword.searchParams.set('password', hidden);
    const bin = startBin([
      'dashboard',
      '--postgres',
      withPassword.toString(),
      '--schema',
      schema,
      '--port',
      '0',
    ]);
    try {
      const [, page = ''] = await bin.waitFor(/dashboard on (\S+)/);
      expect(bin.stdout()).toContain('password=***');
      const html = await (await fetch(page)).text();
      const overview = await (await fetch(new URL('api/overview', page))).text();
      expect(JSON.parse(overview).source).toContain('password=***');
      for (const text of [bin.stdout(), bin.stderr(), html, overview]) expect(text).not.toContain(hidden);
    } finally {
      bin.child.kill('SIGTERM');
      await bin.exited;
    }
  });
});
