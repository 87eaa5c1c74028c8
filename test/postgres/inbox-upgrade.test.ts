import { randomUUID } from 'node:crypto';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, expect, it } from 'vitest';
import { SCHEMA_STEPS } from '../../src/postgres/schema/steps.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Schema step 6 during a rolling deploy: a database written by the previous version (tables
 * `inbox` and `inbox_deliveries`) is migrated while processes of that version still run. Every
 * row is kept in `inbox_events`, and until the old tables are dropped, what either version writes
 * is seen by the other: neither runs an event the other handled or holds.
 */

/** The previous version's statements, as its processes keep sending them during the deploy. */
const old = (s: string) => ({
  claim: `INSERT INTO ${s}.inbox AS i (event_id, event_type, tenant_id, status, claimed_at, done_at)
VALUES ($1, 'LoyaltyRuleChanged', '', 'in-progress', now(), NULL)
ON CONFLICT (event_id) DO UPDATE SET status = excluded.status, claimed_at = excluded.claimed_at, done_at = excluded.done_at
  WHERE i.status = 'in-progress' AND i.claimed_at < now() - interval '10 minutes'
RETURNING 1`,
  complete: `UPDATE ${s}.inbox SET status = 'done', done_at = now() WHERE event_id = $1`,
  store: `INSERT INTO ${s}.inbox_deliveries (event_id, event_type, tenant_id, raw_body, correlation_id,
  signature_timestamp, secret_index, received_at, state)
VALUES ($1, 'LoyaltyRuleChanged', 't-1', '{"old":true}', 'c-1', 1764000000, 0, now(), 'pending')
ON CONFLICT (event_id) DO NOTHING RETURNING 1`,
});

describeWithPostgres('schema step 6 (one inbox record) during a rolling deploy', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 5 });
  afterAll(() => pool.end());

  /** A schema at version 5, as the previous version left it, with rows in both old tables. */
  async function previousVersion(schema: string, rows: boolean) {
    const s = `"${schema}"`;
    await pool.query(`CREATE SCHEMA ${s}`);
    await pool.query(`CREATE TABLE ${s}.schema_version (
      version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    for (const step of SCHEMA_STEPS.filter((step) => step.version <= 5)) {
      for (const statement of step.statements(s)) await pool.query(statement);
      await pool.query(`INSERT INTO ${s}.schema_version (version, description) VALUES ($1, $2)`, [
        step.version,
        step.description,
      ]);
    }
    if (!rows) return s;
    await pool.query(`INSERT INTO ${s}.inbox (event_id, event_type, status, claimed_at, done_at) VALUES
      ('done-1', 'X', 'done', now(), now()), ('running-1', 'X', 'in-progress', now(), NULL),
      ('both-1', 'X', 'done', now(), now())`);
    await pool.query(`INSERT INTO ${s}.inbox_deliveries (event_id, event_type, tenant_id, state, raw_body,
      correlation_id, signature_timestamp, secret_index, received_at, attempts, last_error, settled_at) VALUES
      ('stored-1', 'X', 't-1', 'pending', '{"a":1}', 'c-1', 1764000000, 0, now(), 0, NULL, NULL),
      ('dead-1', 'X', 't-1', 'dead', '{"a":2}', 'c-2', 1764000000, 0, now(), 5, 'boom', now()),
      ('both-1', 'X', 't-1', 'pending', '{"a":3}', 'c-3', 1764000000, 0, now(), 0, NULL, NULL)`);
    return s;
  }

  it('keeps every row in the one record, an event handled by either table handled', async () => {
    const schema = uniqueName('upgrade');
    const s = await previousVersion(schema, true);
    expect((await migrate(pool, { schema })).applied).toEqual([6, 7, 8, 9]);
    const { rows } = await pool.query(
      `SELECT event_id, state, raw_body IS NOT NULL AS body, attempts FROM ${s}.inbox_events ORDER BY event_id`,
    );
    expect(rows).toEqual([
      { event_id: 'both-1', state: 'handled', body: true, attempts: 0 },
      { event_id: 'dead-1', state: 'dead', body: true, attempts: 5 },
      { event_id: 'done-1', state: 'handled', body: false, attempts: 1 },
      { event_id: 'running-1', state: 'pending', body: false, attempts: 1 },
      { event_id: 'stored-1', state: 'pending', body: true, attempts: 0 },
    ]);
    const inbox = postgresInbox(pool, { schema });
    const key = (eventId: string) => ({ eventId, eventType: 'X', tenantId: '' });
    expect(await inbox.begin(key('done-1'))).toBe('done');
    expect(await inbox.begin(key('both-1'))).toBe('done');
    expect(await inbox.begin(key('running-1'))).toBe('in-progress');
    const claims = await inbox.claimDue('new-process', 10);
    expect(claims.map((c) => c.eventId)).toEqual(['stored-1']);
  });

  it('while old processes run: each side sees what the other wrote, and nothing runs twice', async () => {
    const schema = uniqueName('upgrade');
    const s = await previousVersion(schema, true);
    await migrate(pool, { schema });
    const sql = old(s);
    const inbox = postgresInbox(pool, { schema });
    const key = (eventId: string) => ({ eventId, eventType: 'LoyaltyRuleChanged', tenantId: '' });

    // An old process handles an event immediately: a new process sees it handled.
    const byOld = randomUUID();
    expect((await pool.query(sql.claim, [byOld])).rowCount).toBe(1);
    expect(await inbox.begin(key(byOld))).toBe('in-progress');
    await pool.query(sql.complete, [byOld]);
    expect(await inbox.begin(key(byOld))).toBe('done');

    // A new process handles one: an old immediate process and an old deferred one see a duplicate.
    const byNew = randomUUID();
    expect(await inbox.begin(key(byNew))).toBe('new');
    expect((await pool.query(sql.claim, [byNew])).rowCount).toBe(0);
    await inbox.complete(key(byNew));
    expect((await pool.query(sql.claim, [byNew])).rowCount).toBe(0);
    expect((await pool.query(sql.store, [byNew])).rowCount).toBe(0);

    // An old deferred receiver stores one: a new runner claims it, an old claim is refused meanwhile.
    const storedByOld = randomUUID();
    expect((await pool.query(sql.store, [storedByOld])).rowCount).toBe(1);
    const [claim] = (await inbox.claimDue('new-process', 10)).filter((c) => c.eventId === storedByOld);
    expect(claim?.rawBody).toBe('{"old":true}');
    expect(await inbox.markHandled(claim!)).toBe(true);
    expect((await pool.query(sql.claim, [storedByOld])).rowCount).toBe(0);

    // A new deferred receiver stores one: an old deferred receiver's copy is a duplicate.
    const storedByNew = randomUUID();
    const delivery = {
      eventId: storedByNew,
      eventType: 'LoyaltyRuleChanged',
      tenantId: 't-1',
      rawBody: '{}',
      correlationId: 'c',
      signatureTimestamp: 1_764_000_000,
      secretIndex: 0,
      receivedAt: Date.now(),
    };
    expect(await inbox.store(delivery, 'pending')).toBe('stored');
    expect((await pool.query(sql.store, [storedByNew])).rowCount).toBe(0);
    expect((await pool.query(sql.claim, [storedByNew])).rowCount).toBe(0);
  });

  it('on a database the previous version never wrote to, drops the old tables and adds no trigger', async () => {
    const schema = uniqueName('fresh');
    const s = await previousVersion(schema, false);
    await migrate(pool, { schema });
    const { rows } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name LIKE 'inbox%' ORDER BY 1`,
      [schema],
    );
    expect(rows.map((row) => row.table_name)).toEqual(['inbox_events']);
    const triggers = await pool.query(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = '${s}.inbox_events'::regclass`,
    );
    expect(triggers.rows).toEqual([]);
  });
});
