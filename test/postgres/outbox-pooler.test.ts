import { fileURLToPath } from 'node:url';
import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LineChild, startLineChild, untilLines as until } from '../support/child-lines.js';
import { type OutboxWorld, outboxWorld, untilDelivered } from '../support/outbox-fixtures.js';
import { type RealServer, startPgBouncer } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * The transactional outbox behind PgBouncer, in transaction mode (Supabase's, Neon's and
 * Heroku's poolers) and in session mode, with pg and postgres.js: three POS processes commit
 * sales through the pooler, each enqueueing its event in the sale's transaction (one in ten
 * rolled back), and two drainers drain through the pooler with `listen` on a direct connection,
 * as docs/outbox.md says. Every committed event is sent once, none rolled back is sent.
 */

const CHILD = fileURLToPath(new URL('./fixtures/pooler-child.mjs', import.meta.url));
const SALES = 100;
const CUSTOMERS = 20;

let world: OutboxWorld;

const start = (args: string[]): LineChild => startLineChild(CHILD, [world.bundle, ...args]);

beforeAll(async () => {
  world = await outboxWorld('outbox-pooler', { customers: CUSTOMERS });
});
afterAll(() => world?.close());

describeWithPostgres('the transactional outbox behind PgBouncer', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const bouncers: Partial<Record<'transaction' | 'session', RealServer>> = {};
  beforeAll(async () => {
    bouncers.transaction = await startPgBouncer(url, { mode: 'transaction', poolSize: 6 });
    // Session mode pins a server connection per client: room for every process's pool.
    bouncers.session = await startPgBouncer(url, { mode: 'session', poolSize: 40 });
  }, 60_000);
  afterAll(async () => {
    await bouncers.transaction?.stop();
    await bouncers.session?.stop();
    await pool.end();
  });

  const cases = (['transaction', 'session'] as const).flatMap((mode) =>
    (['pg', 'postgres.js'] as const).map((driver) => [mode, driver] as const),
  );
  it.each(cases)(
    'in %s mode with %s: every committed event sent once, none rolled back sent, listen on a direct connection',
    async (mode, driver) => {
      const schema = uniqueName(`pooler_${mode}`);
      await migrate(pool, { schema });
      await pool.query(
        `CREATE TABLE "${schema}".sales (invoice_id text PRIMARY KEY, event_id text NOT NULL UNIQUE, pos text NOT NULL)`,
      );
      const requestsBefore = world.emulator.events({ tenantId: world.merchant.tenantId }).length;
      const pooled = bouncers[mode]!.url;
      const common = (role: string, name: string) => [
        role,
        driver === 'pg' ? 'pg' : 'postgres',
        pooled,
        url,
        schema,
        world.baseUrl,
        world.merchant.apiKey,
        world.merchant.signingSecret,
        world.merchant.tenantId,
        name,
        String(SALES),
        String(CUSTOMERS),
        mode,
      ];
      const drainers = [1, 2].map((n) => start(common('drain', `drainer-${n}`)));
      for (const drainer of drainers) await until(drainer, 'READY', (lines) => lines.includes('READY'));
      const sellers = [1, 2, 3].map((n) => start(common('pos', `pos-${n}`)));
      for (const pos of sellers) await until(pos, 'SOLD', (lines) => lines.some((l) => l.startsWith('SOLD')));

      await untilDelivered(pool, schema);
      for (const child of [...sellers, ...drainers]) child.child.stdin!.write('stop\n');
      for (const child of [...sellers, ...drainers]) {
        await child.closed;
        expect({ code: child.child.exitCode, stderr: child.stderr() }).toEqual({ code: 0, stderr: '' });
        // No warning: postgres.js is given `prepare: false` behind the pooler, as the docs say.
        expect(child.lines().filter((line) => line.startsWith('WARN'))).toEqual([]);
      }

      const sales = (await pool.query<{ event_id: string }>(`SELECT event_id FROM "${schema}".sales`)).rows;
      const committed = new Set(sales.map((sale) => sale.event_id));
      const rolledBack = sellers.reduce(
        (sum, pos) =>
          sum +
          Number(
            pos
              .lines()
              .find((l) => l.startsWith('SOLD'))!
              .split(' ')[2],
          ),
        0,
      );
      const requests = world.emulator.events({ tenantId: world.merchant.tenantId }).slice(requestsBefore);
      expect(sales).toHaveLength(3 * SALES);
      expect(rolledBack).toBeGreaterThan(0);
      expect(requests.filter((request) => !committed.has(request.eventId!))).toEqual([]);
      const sent = new Map<string, number>();
      for (const request of requests) sent.set(request.eventId!, (sent.get(request.eventId!) ?? 0) + 1);
      expect([...committed].filter((eventId) => sent.get(eventId) !== 1)).toEqual([]);
    },
    180_000,
  );
});
