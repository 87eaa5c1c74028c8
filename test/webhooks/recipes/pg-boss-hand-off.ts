// The recipe of docs/deferred-handling.md, "Handing off to pg-boss": kept here so that it is
// type-checked and run (test/webhooks/pg-boss-hand-off.test.ts) against the real PostgreSQL.
import { type PostgresTx, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import type pg from 'pg';
import type PgBoss from 'pg-boss';

/** pg-boss's `db` option over the handler's transaction: its job commits with the event. */
const inTransaction = (tx: PostgresTx<pg.Pool>) => ({
  executeSql: async (text: string, values: unknown[]) => {
    const { rows } = await tx.query(text, values);
    return { rows };
  },
});

export function receiverWithHandOff(pool: pg.Pool, boss: PgBoss, secret: string) {
  return createReceiver({
    secrets: secret,
    inbox: postgresInbox(pool, { schema: 'loyalty', transactional: true }),
    deferred: true,
    handlers: {
      async LoyaltyRuleChanged(event, ctx) {
        // The job exists if and only if the event is marked handled: one commit for both.
        await boss.send(
          'rebuild-rules',
          { eventId: event.eventId, tenantId: ctx.tenantId },
          { db: inTransaction(ctx.tx), singletonKey: event.eventId },
        );
      },
    },
  });
}
