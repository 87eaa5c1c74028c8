import { migrate } from 'loyalty-partner-sdk/postgres';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { deadSales } from './ops-fixtures.js';
import { cli } from './run.js';

/** Issue 33, must show 1: five events made dead by a 400 from the emulator, seen and redelivered. */
describeWithPostgres('loyalty-partner outbox, on a real Postgres outbox', (url) => {
  const schema = uniqueName('ops_outbox');
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const emulator = createEmulator();
  let world: Awaited<ReturnType<typeof deadSales>>;
  const flags = ['--postgres', url, '--schema', schema];

  beforeAll(async () => {
    await migrate(pool, { schema });
    const { url: service } = await emulator.listen();
    world = await deadSales(emulator, service, pool, schema, 5, 'cafe-ops');
  });
  afterAll(async () => {
    await world?.close();
    await emulator.close();
    await pool.end();
  });

  it('counts the five dead events with stats --json, per tenant too', async () => {
    const { code, stdout } = await cli(['outbox', 'stats', '--json', ...flags]);
    expect(code).toBe(0);
    const stats = JSON.parse(stdout);
    expect(stats).toMatchObject({ pending: 0, parked: 0, dead: 5, expired: 0 });
    expect(stats.tenants).toEqual([{ tenantId: 'cafe-ops', states: { dead: 5 }, oldestPendingAt: null }]);
  });

  it('lists them by eventId with the service error, as a table and as JSON', async () => {
    const table = await cli(['outbox', 'list', '--state', 'dead', ...flags]);
    expect(table.code).toBe(0);
    for (const id of world.eventIds) expect(table.stdout).toContain(id);
    expect(table.stdout).toContain('STAMP_CARD_NOT_FOUND');
    const json = await cli(['outbox', 'list', '--state', 'dead', '--json', '--tenant', 'cafe-ops', ...flags]);
    const listed = JSON.parse(json.stdout);
    expect(listed.map((e: { eventId: string }) => e.eventId)).toEqual(world.eventIds);
    expect(listed[0]).toMatchObject({
      eventType: 'InvoiceEarned',
      attempts: 1,
      lastError: { code: 'STAMP_CARD_NOT_FOUND', status: 400 },
    });
    expect(json.stdout).not.toContain('inv-cafe-ops-1'); // payloads are never printed
    const other = await cli([
      'outbox',
      'list',
      '--state',
      'dead',
      '--json',
      '--type',
      'CustomerSynced',
      ...flags,
    ]);
    expect(JSON.parse(other.stdout)).toEqual([]);
  });

  it('redeliver <id> sends that event again and only it, and writes who did it to the audit table', async () => {
    const [chosen, ...rest] = world.eventIds as [string, ...string[]];
    const { code, stdout } = await cli(['outbox', 'redeliver', chosen, '--actor', 'noura', ...flags]);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`${chosen}\\s+done`));
    await world.drain();
    expect(emulator.events({ eventId: chosen })).toHaveLength(2);
    for (const id of rest) expect(emulator.events({ eventId: id })).toHaveLength(1);
    const { rows } = await pool.query(`SELECT actor, action, target, detail FROM "${schema}".audit`);
    expect(rows).toEqual([
      {
        actor: 'noura',
        action: 'outbox.redeliver',
        target: chosen,
        detail: expect.objectContaining({ via: 'cli', from: 'dead', lastError: 'STAMP_CARD_NOT_FOUND' }),
      },
    ]);
  });

  it('refuses a pending or unknown id with exit 1, and acts on the others it was given', async () => {
    const unknown = '01900000-0000-7000-8000-000000000000';
    const { code, stdout } = await cli(['outbox', 'redeliver', unknown, world.eventIds[1]!, ...flags]);
    expect(code).toBe(1);
    expect(stdout).toMatch(new RegExp(`${unknown}\\s+refused\\s+not in the outbox`));
    expect(stdout).toMatch(new RegExp(`${world.eventIds[1]}\\s+done`));
    await world.drain();
  });

  it('discards all dead events of a tenant only after a yes', async () => {
    const no = await cli(['outbox', 'discard', '--all', '--state', 'dead', ...flags], { stdin: 'n\n' });
    expect([no.code, no.stderr]).toEqual([
      1,
      expect.stringContaining('discard 5 events (dead events)? [y/N]'),
    ]);
    const yes = await cli(
      ['outbox', 'discard', '--all', '--state', 'dead', '--tenant', 'cafe-ops', ...flags],
      {
        stdin: 'y\n',
      },
    );
    expect(yes.code).toBe(0);
    const stats = JSON.parse((await cli(['outbox', 'stats', '--json', ...flags])).stdout);
    expect(stats.dead).toBe(0);
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".audit WHERE action = 'outbox.discard'`,
    );
    expect(rows[0].n).toBe(5);
  });

  it('takes the database from DATABASE_URL, and never prints a password', async () => {
    const env = { DATABASE_URL: 'postgres://pos:s3cret-pass@127.0.0.1:1/pos' };
    const { code, stderr, stdout } = await cli(['outbox', 'stats'], { env });
    expect(code).toBe(3);
    expect(`${stdout}${stderr}`).not.toContain('s3cret-pass');
    const missing = await cli(['outbox', 'stats']);
    expect([missing.code, missing.stderr]).toEqual([
      2,
      expect.stringContaining('--postgres <url> or set DATABASE_URL'),
    ]);
  });
});
