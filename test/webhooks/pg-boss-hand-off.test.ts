import { migrate } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres } from '../support/servers.js';
import { receiverWithHandOff } from './recipes/pg-boss-hand-off.js';
import { outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

describeWithPostgres('the pg-boss hand-off recipe (docs/deferred-handling.md)', (url) => {
  // The recipe uses schema 'loyalty': a database of its own keeps it apart from other tests.
  const database = `pgboss_${process.pid}_${Date.now()}`;
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  let pool: pg.Pool;
  let boss: PgBoss;
  beforeAll(async () => {
    await admin.query(`CREATE DATABASE ${database}`);
    const own = new URL(url);
    own.pathname = `/${database}`;
    pool = new pg.Pool({ connectionString: own.href, max: 5 });
    await migrate(pool, { schema: 'loyalty' });
    boss = new PgBoss({ connectionString: own.href, max: 2 });
    boss.on('error', () => undefined);
    await boss.start();
    await boss.createQueue('rebuild-rules');
  }, 60_000);
  afterAll(async () => {
    await boss?.stop({ graceful: false, wait: true });
    await pool?.end();
    // The database stays: the server is this test run's own and goes with it.
    await admin.end();
  });

  it('sends the job inside the handler transaction: one job per event, committed with the handled mark', async () => {
    const receiver = receiverWithHandOff(pool, boss, SECRET);
    await receiver.start();
    try {
      const event = outboundEvent('LoyaltyRuleChanged');
      expect((await receiver.handle(signedDelivery(event))).status).toBe(200);
      expect((await receiver.handle(signedDelivery(event))).status).toBe(200);
      while ((await receiver.stats()).handled < 1) await new Promise((resolve) => setTimeout(resolve, 20));
      const jobs = await pool.query(`SELECT data FROM pgboss.job WHERE name = 'rebuild-rules'`);
      expect(jobs.rows.map((row) => row.data)).toEqual([{ eventId: event.eventId, tenantId: 'merchant-1' }]);
    } finally {
      await receiver.close();
    }
  });
});
