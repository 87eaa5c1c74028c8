import { fileURLToPath } from 'node:url';
import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LineChild, startLineChild, untilLines as until } from '../support/child-lines.js';
import { type OutboxWorld, outboxWorld, untilDelivered } from '../support/outbox-fixtures.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * The transactional outbox as three POS server processes use it: each commits its share of
 * sales, enqueueing the loyalty event in the sale's own transaction (one in ten rolled back on
 * purpose), and all three drain the shared table to the emulator while faults are injected and
 * one of them is SIGKILLed mid-way and restarted. Proved from the database's committed sales
 * and the emulator's own record of what arrived.
 */

const CHILD = fileURLToPath(new URL('./fixtures/pos-child.mjs', import.meta.url));
const POS = 3;
const SALES = 1_000;
const CUSTOMERS = 40;

let world: OutboxWorld;

function startPos(driver: string, dbUrl: string, schema: string, pos: number): LineChild {
  const { bundle, baseUrl, merchant } = world;
  const args = [bundle, driver, dbUrl, schema, baseUrl, merchant.apiKey, merchant.signingSecret];
  return startLineChild(CHILD, [...args, merchant.tenantId, `pos-${pos}`, String(SALES), String(CUSTOMERS)]);
}

const committedSoFar = (pos: LineChild): number => {
  const progress = pos.lines().filter((line) => line.startsWith('P '));
  return Number(progress.at(-1)?.split(' ')[1] ?? 0);
};

beforeAll(async () => {
  world = await outboxWorld('outbox-pos', { customers: CUSTOMERS });
});
afterAll(() => world?.close());

describeWithPostgres('the transactional outbox in three POS processes', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  afterAll(() => pool.end());

  // The driver name the child takes, by the name the test shows.
  const drivers: Record<string, string> = {
    pg: 'pg',
    'postgres.js': 'postgres',
    'pg in pipeline mode': 'pg-pipeline',
  };
  it.each(Object.keys(drivers))(
    'with %s: every committed sale credited once, no rolled-back sale sent, one customer’s events in commit order, across a SIGKILL',
    async (driver) => {
      const schema = uniqueName('pos');
      await migrate(pool, { schema });
      await pool.query(`CREATE TABLE "${schema}".customers (id text PRIMARY KEY, n integer NOT NULL)`);
      await pool.query(`CREATE TABLE "${schema}".sales (
        invoice_id text PRIMARY KEY, event_id text NOT NULL UNIQUE, pos text NOT NULL, customer text NOT NULL, n integer NOT NULL)`);
      const requestsBefore = world.emulator.events({ tenantId: world.merchant.tenantId }).length;
      world.emulator.injectFaults({
        kinds: ['CONCURRENCY_CONFLICT', 'reset', 'timeout-after-processing'],
        rate: 0.1,
        seed: driver.length,
        endpoints: ['events'],
      });
      const processes = [1, 2, 3].map((pos) => startPos(drivers[driver]!, url, schema, pos));
      for (const pos of processes) await until(pos, 'READY', (lines) => lines.includes('READY'));

      // POS 2 dies mid-way, with sales, enqueues and deliveries under way, and comes back.
      await until(processes[1]!, '300 sales', () => committedSoFar(processes[1]!) >= 300);
      processes[1]!.child.kill('SIGKILL');
      await processes[1]!.closed;
      const rolledBackBeforeKill = Number(
        processes[1]!
          .lines()
          .filter((l) => l.startsWith('P '))
          .at(-1)
          ?.split(' ')[2],
      );
      processes[1] = startPos(drivers[driver]!, url, schema, 2);

      for (const pos of processes) await until(pos, 'SOLD', (lines) => lines.includes('SOLD'));
      await untilDelivered(pool, schema);
      for (const pos of processes) pos.child.stdin!.write('stop\n');
      for (const pos of processes) {
        await pos.closed;
        expect({ code: pos.child.exitCode, stderr: pos.stderr() }).toEqual({ code: 0, stderr: '' });
      }
      world.emulator.injectFaults({ kinds: ['reset'], rate: 0 });

      const sales = (
        await pool.query<{ invoice_id: string; event_id: string; customer: string; n: number }>(
          `SELECT invoice_id, event_id, customer, n FROM "${schema}".sales ORDER BY customer, n`,
        )
      ).rows;
      const requests = world.emulator.events({ tenantId: world.merchant.tenantId }).slice(requestsBefore);
      const committed = new Set(sales.map((sale) => sale.event_id));
      const rolledBack = processes.reduce(
        (sum, pos) =>
          sum +
          Number(
            pos
              .lines()
              .filter((l) => l.startsWith('P '))
              .at(-1)
              ?.split(' ')[2],
          ),
        rolledBackBeforeKill,
      );

      // Every committed sale, and nothing else, reached the service, each credited once.
      expect(sales).toHaveLength(POS * SALES);
      expect(rolledBack).toBeGreaterThan(POS * SALES * 0.05);
      expect(requests.filter((request) => !committed.has(request.eventId!))).toEqual([]);
      const credits = new Map<string, number>();
      for (const request of requests.filter((r) => r.outcome === 'processed')) {
        credits.set(request.eventId!, (credits.get(request.eventId!) ?? 0) + 1);
      }
      expect(sales.filter((sale) => credits.get(sale.event_id) !== 1)).toEqual([]);
      const invoices = new Map(
        world.emulator.merchant(world.merchant.tenantId).invoices.map((i) => [i.externalInvoiceId, i]),
      );
      expect(sales.filter((sale) => !invoices.get(sale.invoice_id)?.credited)).toEqual([]);
      expect(requests.some((request) => request.outcome === 'fault')).toBe(true);

      // One customer's events arrive in the order their sales committed: the copy the service
      // credits (the first one it processed) of sale n comes before that of sale n + 1. (A copy
      // the client abandoned after its timeout may still be processed later by a busy service,
      // as a replay: it credits nothing.)
      const credited = new Map<string, number>();
      requests.forEach((request, index) => {
        if (request.outcome === 'processed' && !credited.has(request.eventId!))
          credited.set(request.eventId!, index);
      });
      const outOfOrder: string[] = [];
      for (let i = 1; i < sales.length; i++) {
        const [before, after] = [sales[i - 1]!, sales[i]!];
        if (before.customer !== after.customer) continue;
        if (credited.get(before.event_id)! > credited.get(after.event_id)!) {
          outOfOrder.push(`${after.customer}: sale ${after.n} credited before sale ${before.n}`);
        }
      }
      expect(outOfOrder).toEqual([]);
    },
    400_000,
  );
});
