import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithPostgres('a transactional postgresInbox and its connection', (url) => {
  const schema = uniqueName('inbox_conn');
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  // One connection: a broken one must be destroyed, or the next delivery would get it back.
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  beforeAll(async () => {
    await migrate(admin, { schema });
    await admin.query(`CREATE TABLE ${schema}.effects (event_id text)`);
  });
  afterAll(async () => {
    await Promise.all([admin.end(), pool.end()]);
  });

  it('answers 503 when the server ends the connection mid-handler, stays alive, and drops that connection', async () => {
    let victim: number | undefined;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema, transactional: true }),
      handlers: {
        async LoyaltyRuleChanged(event, ctx) {
          const { rows } = await ctx.tx.query('SELECT pg_backend_pid() AS pid');
          if (victim === undefined) {
            victim = rows[0].pid as number;
            // The connection is idle in the transaction when the server ends it (as
            // idle_in_transaction_session_timeout or a failover would): its client emits `error`.
            await admin.query('SELECT pg_terminate_backend($1)', [victim]);
            await sleep(300);
            return;
          }
          await ctx.tx.query(`INSERT INTO ${schema}.effects VALUES ($1)`, [event.eventId]);
        },
      },
    });
    const event = outboundEvent('LoyaltyRuleChanged');
    const first = await receiver.handle(signedDelivery(event));
    expect([first.status, bodyOf(first).code]).toEqual([503, 'INBOX_UNAVAILABLE']);
    // The service redelivers: a fresh connection, the handler runs, its write commits.
    const again = await receiver.handle(signedDelivery(event));
    expect([again.status, bodyOf(again).outcome]).toEqual([200, 'handled']);
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM ${schema}.effects WHERE event_id = $1`,
      [event.eventId],
    );
    expect(rows[0].n).toBe(1);
  });

  it('refuses a ctx.tx kept by a handler and used after it returned (TRANSACTION_ENDED)', async () => {
    let kept: { query(text: string, values?: unknown[]): Promise<unknown> } | undefined;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema, transactional: true }),
      handlers: {
        async LoyaltyRuleChanged(_event, ctx) {
          kept ??= ctx.tx;
        },
      },
    });
    expect((await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')))).status).toBe(200);
    const late = outboundEvent('LoyaltyRuleChanged').eventId;
    let refused: unknown;
    try {
      await kept!.query(`INSERT INTO ${schema}.effects VALUES ($1)`, [late]);
    } catch (err) {
      refused = err;
    }
    expect((refused as { code?: string } | undefined)?.code).toBe('TRANSACTION_ENDED');
    const { rows } = await admin.query(
      `SELECT count(*)::int AS n FROM ${schema}.effects WHERE event_id = $1`,
      [late],
    );
    expect(rows[0].n).toBe(0);
  });
});
