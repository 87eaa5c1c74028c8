import { randomUUID } from 'node:crypto';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

/** Issue 42 items 1, 4, 5, 6, 8 and 9 and issue 39 item 4 on a real Postgres inbox. */

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 1_500) throw new Error('condition never met');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describeWithPostgres('postgresInbox transactions and operators', (url) => {
  const schema = uniqueName('inbox_tx');
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  const sql = postgres(url, { max: 7, onnotice: () => undefined });
  beforeAll(async () => {
    await migrate(pool, { schema });
    await pool.query(`CREATE TABLE ${schema}.effects (event_id text)`);
  });
  afterAll(async () => {
    await Promise.all([pool.end(), sql.end({ timeout: 1 })]);
  });
  const effects = async (eventId: string) =>
    Number(
      (await pool.query(`SELECT count(*) FROM ${schema}.effects WHERE event_id = $1`, [eventId])).rows[0]
        .count,
    );

  describe('a transactional handler that issues ROLLBACK itself', () => {
    it('immediate: the delivery fails with HANDLER_ENDED_TRANSACTION (500), it is not recorded handled', async () => {
      const failures: ReceiverFailure[] = [];
      const receiver = createReceiver({
        secrets: SECRET,
        inbox: postgresInbox(pool, { schema, transactional: true }),
        onError: (failure) => void failures.push(failure),
        handlers: {
          async LoyaltyRuleChanged(event, ctx) {
            await ctx.tx.query('ROLLBACK');
            await ctx.tx.query(`INSERT INTO ${schema}.effects VALUES ($1)`, [event.eventId]);
          },
        },
      });
      const event = outboundEvent('LoyaltyRuleChanged');
      const answer = await receiver.handle(signedDelivery(event));
      expect([answer.status, bodyOf(answer).code]).toEqual([500, 'HANDLER_FAILED']);
      expect((failures[0]?.cause as { code?: string } | undefined)?.code).toBe('HANDLER_ENDED_TRANSACTION');
      const { rows } = await pool.query(`SELECT state FROM ${schema}.inbox_events WHERE event_id = $1`, [
        event.eventId,
      ]);
      expect(rows).toEqual([]);
      // What it wrote after its ROLLBACK committed on its own: what the error tells the user.
      expect(await effects(event.eventId)).toBe(1);
    });

    for (const [driver, db] of [
      ['pg', pool],
      ['postgres.js', sql],
    ] as const) {
      it(`deferred on ${driver}: the delivery is dead at once with the reason, run once, never again`, async () => {
        let runs = 0;
        const receiver = createReceiver({
          secrets: SECRET,
          inbox: postgresInbox(db, { schema, transactional: true }),
          deferred: true,
          onError: () => undefined,
          handlers: {
            async LoyaltyRuleChanged(event, ctx) {
              runs++;
              const tx = ctx.tx as unknown as {
                query?: (text: string) => Promise<unknown>;
                unsafe?: (text: string) => Promise<unknown>;
              };
              await (tx.query ? tx.query('ROLLBACK') : tx.unsafe!('ROLLBACK'));
              void event;
            },
          },
        });
        const event = outboundEvent('LoyaltyRuleChanged');
        expect((await receiver.handle(signedDelivery(event))).status).toBe(200);
        await receiver.start();
        const dead = async () =>
          (await receiver.list({ state: 'dead', limit: 10_000 })).find((r) => r.eventId === event.eventId);
        await until(async () => (await dead()) !== undefined);
        await receiver.close();
        expect((await dead())?.lastError).toMatch(/ROLLBACK or COMMIT/);
        expect(runs).toBe(1);
      });
    }
  });

  it('ctx.tx used after its handler returned answers a rejected promise, never a synchronous throw', async () => {
    let kept: { query(text: string): Promise<unknown> } | undefined;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema, transactional: true }),
      handlers: {
        LoyaltyRuleChanged(_event, ctx) {
          kept = ctx.tx;
        },
      },
    });
    expect((await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')))).status).toBe(200);
    let late: unknown;
    expect(() => {
      late = kept!.query('SELECT 1');
    }).not.toThrow();
    await expect(late).rejects.toMatchObject({ code: 'TRANSACTION_ENDED' });
  });

  it('accepts deferred: true with a lease shorter than handlerTimeoutMs, which deferred runs do not use', () => {
    const make = (deferred: boolean, transactional: boolean) => () =>
      createReceiver({
        secrets: SECRET,
        deferred,
        inbox: transactional
          ? postgresInbox(pool, { schema, leaseMs: 5_000, transactional: true })
          : postgresInbox(pool, { schema, leaseMs: 5_000 }),
        handlers: {},
      });
    expect(make(true, false)).not.toThrow();
    expect(make(true, true)).not.toThrow();
    expect(make(false, true)).not.toThrow();
    expect(make(false, false)).toThrow(/handlerTimeoutMs/);
  });

  it('knows its pool size where the driver says it', () => {
    expect(postgresInbox(pool, { schema }).poolSize).toBe(6);
    expect(postgresInbox(sql, { schema }).poolSize).toBe(7);
  });

  describe('operators: replay and discard with their audit entry', () => {
    const stored = async (inbox: ReturnType<typeof postgresInbox>, state: 'pending' | 'parked') => {
      const eventId = randomUUID();
      const delivery = {
        eventId,
        eventType: 'LoyaltyRuleChanged',
        tenantId: 't-1',
        rawBody: '{}',
        correlationId: 'c-1',
        signatureTimestamp: 1_764_000_000,
        secretIndex: 0,
        receivedAt: Date.now(),
      };
      await inbox.store(delivery, state, 'unknown type');
      return eventId;
    };
    const auditOf = async (eventId: string) =>
      (await pool.query(`SELECT actor, action, detail FROM ${schema}.audit WHERE target = $1`, [eventId]))
        .rows;

    it('writes the entry with the state the delivery came from, in the same transaction', async () => {
      const inbox = postgresInbox(pool, { schema });
      const parked = await stored(inbox, 'parked');
      expect(await inbox.replay(parked, { actor: 'ana@ops', detail: { ticket: 'OPS-1' } })).toBe(true);
      expect(await auditOf(parked)).toEqual([
        { actor: 'ana@ops', action: 'inbox.replay', detail: { ticket: 'OPS-1', from: 'parked' } },
      ]);
      expect(await inbox.discard(parked, { actor: 'ana@ops' })).toBe(true);
      expect((await auditOf(parked))[1]).toEqual({
        actor: 'ana@ops',
        action: 'inbox.discard',
        detail: { from: 'pending' },
      });
      expect(await inbox.discard(parked, { actor: 'ana@ops' })).toBe(false);
      expect(await auditOf(parked)).toHaveLength(2);
      const unaudited = await stored(inbox, 'parked');
      expect(await inbox.discard(unaudited)).toBe(true);
      expect(await auditOf(unaudited)).toEqual([]);
    });

    it('with a role that may not write the audit table, neither the action nor the entry happens', async () => {
      const role = uniqueName('no_audit');
      await pool.query(`CREATE ROLE ${role}`);
      await pool.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await pool.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${schema}.inbox_events TO ${role}`);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`SET ROLE ${role}`);
        const inbox = postgresInbox(client, { schema });
        const parked = await stored(postgresInbox(pool, { schema }), 'parked');
        await expect(inbox.replay(parked, { actor: 'ana@ops' })).rejects.toMatchObject({
          code: 'QUERY_FAILED',
        });
        expect(
          (await inbox.list({ state: 'parked', tenantId: 't-1', limit: 10_000 })).map((r) => r.eventId),
        ).toContain(parked);
        expect(await auditOf(parked)).toEqual([]);
      } finally {
        await client.end();
      }
    });
  });
});
