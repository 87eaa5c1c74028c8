import { fileURLToPath } from 'node:url';
import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LineChild, lineOf, startLineChild } from '../support/child-lines.js';
import { type OutboxWorld, outboxWorld } from '../support/outbox-fixtures.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * Issue 30, item 14 (and issue 42, item 13, below): a drainer stopped (SIGSTOP) past its lease
 * while its send is under way, whose event another drainer claims and delivers meanwhile, and
 * which then resumes (SIGCONT) and gets its own answer. Only the process that still holds the claim records the outcome and reports it.
 * Real processes, the real PostgreSQL, the emulator over HTTP.
 */

const CHILD = fileURLToPath(new URL('./fixtures/drainer-child.mjs', import.meta.url));
const LEASE_MS = 500;
/**
 * The drainer that takes the event over keeps its claim well past any stall of a loaded machine:
 * with the stopped one's short lease, its own could run out while its send is under way, and it
 * would claim the event again and send a second copy (as a lease that ran out allows).
 */
const TAKEOVER_LEASE_MS = 30_000;
/** The emulator holds each request this long: the first copy is still in flight when B sends. */
const LATENCY_MS = 1_500;

let world: OutboxWorld;

function startDrainer(dbUrl: string, schema: string, leaseMs: number, ...extra: string[]): LineChild {
  const { bundle, baseUrl, merchant } = world;
  const args = [bundle, dbUrl, schema, baseUrl, merchant.apiKey, merchant.signingSecret, merchant.tenantId];
  return startLineChild(CHILD, [...args, String(leaseMs), ...extra]);
}

const delivered = (drainer: LineChild) => drainer.lines().filter((line) => line.startsWith('DELIVERED '));

/** Stops both drainers once nothing is in flight; their stats, once each exited cleanly. */
async function stopBoth(...drainers: LineChild[]): Promise<{ delivered: number }[]> {
  for (const drainer of drainers) drainer.child.stdin!.write('stop\n');
  const stats = await Promise.all(
    drainers.map(async (drainer) => JSON.parse((await lineOf(drainer, 'STATS ')).slice(6))),
  );
  for (const drainer of drainers) {
    await drainer.closed;
    expect({ code: drainer.child.exitCode, stderr: drainer.stderr() }).toEqual({ code: 0, stderr: '' });
  }
  return stats;
}

function killAll(...drainers: (LineChild | undefined)[]): void {
  for (const drainer of drainers) {
    if (drainer && drainer.child.exitCode === null) {
      drainer.child.kill('SIGCONT');
      drainer.child.kill('SIGKILL');
    }
  }
}

beforeAll(async () => {
  world = await outboxWorld('outbox-stale-claim', { customers: 2 });
});
afterAll(() => world?.close());

describeWithPostgres('a drainer stopped past its lease', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  afterAll(() => pool.end());

  it('records and reports its answer nowhere once another drainer took the event over; that one reports it once', async () => {
    const schema = uniqueName('stale_claim');
    await migrate(pool, { schema });
    world.emulator.setLatency(LATENCY_MS);
    const stopped = startDrainer(url, schema, LEASE_MS, 'enqueue', 'inv-stale-1');
    let other: LineChild | undefined;
    try {
      const eventId = (await lineOf(stopped, 'ENQUEUED ')).split(' ')[1]!;
      await lineOf(stopped, `SENDING ${eventId}`);
      stopped.child.kill('SIGSTOP');

      // The lease runs out; the other drainer claims the event, sends its own copy and records it.
      other = startDrainer(url, schema, TAKEOVER_LEASE_MS);
      await lineOf(other, `DELIVERED ${eventId}`);
      stopped.child.kill('SIGCONT');
      await lineOf(stopped, `ANSWERED ${eventId}`);

      const stats = await stopBoth(stopped, other);

      // onDelivered fired once, in the process that held the claim when the answer was recorded;
      // the other said that it let its answer go.
      expect(delivered(other)).toEqual([`DELIVERED ${eventId}`]);
      expect(delivered(stopped)).toEqual([]);
      expect(stopped.lines()).toContain(`LOG loyalty.outbox.outcome_not_recorded ${eventId}`);
      expect(stats.map((s) => s.delivered)).toEqual([0, 1]);
      const { rows } = await pool.query(`SELECT state FROM "${schema}".outbox WHERE event_id = $1`, [
        eventId,
      ]);
      expect(rows).toEqual([{ state: 'delivered' }]);
      // Both copies reached the service; it credited the event once.
      const requests = world.emulator
        .events({ tenantId: world.merchant.tenantId })
        .filter((r) => r.eventId === eventId);
      expect(requests.filter((r) => r.outcome === 'processed')).toHaveLength(1);
      expect(requests.length).toBeGreaterThanOrEqual(2);
    } finally {
      world.emulator.setLatency(0);
      killAll(stopped, other);
    }
  }, 60_000);

  it('does not send an event whose claim another drainer took over while it stood still, and says so; that one sends it once and reports it once', async () => {
    // Issue 42, item 13: stopped after its claim, right before its check and its send.
    const schema = uniqueName('stale_send');
    await migrate(pool, { schema });
    const stopped = startDrainer(url, schema, LEASE_MS, 'enqueue', 'inv-stale-2', 'hold');
    let other: LineChild | undefined;
    try {
      const eventId = (await lineOf(stopped, 'ENQUEUED ')).split(' ')[1]!;
      await lineOf(stopped, 'HOLDING');
      stopped.child.kill('SIGSTOP');

      // Its lease runs out; the other drainer claims the event, sends it and records it.
      other = startDrainer(url, schema, TAKEOVER_LEASE_MS);
      await lineOf(other, `DELIVERED ${eventId}`);
      stopped.child.kill('SIGCONT');
      stopped.child.stdin!.write('go\n');
      // What it did with the event, logged either way (a copy sent: its outcome not recorded).
      expect(await lineOf(stopped, 'LOG loyalty.outbox.')).toBe(`LOG loyalty.outbox.claim_lost ${eventId}`);

      const stats = await stopBoth(stopped, other);
      expect(stopped.lines().filter((line) => line.startsWith('SENDING '))).toEqual([]);
      expect(delivered(stopped)).toEqual([]);
      expect(delivered(other)).toEqual([`DELIVERED ${eventId}`]);
      expect(stats.map((s) => s.delivered)).toEqual([0, 1]);
      // One copy reached the service, credited once.
      const requests = world.emulator
        .events({ tenantId: world.merchant.tenantId })
        .filter((r) => r.eventId === eventId);
      expect(requests.map((r) => r.outcome)).toEqual(['processed']);
    } finally {
      killAll(stopped, other);
    }
  }, 60_000);
});
