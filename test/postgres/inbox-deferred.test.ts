import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver, type Receiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';
import { countingPool } from './support/counting-pool.js';

/** Must show 2, 3 and 4 of issue 31, over real HTTP on a Postgres inbox. */

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describeWithPostgres('a deferred receiver on postgresInbox, over HTTP', (url) => {
  const schema = uniqueName('deferred');
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const open: Array<{ close(): Promise<void> }> = [];
  beforeAll(() => migrate(pool, { schema }));
  afterEach(async () => {
    for (const thing of open.splice(0).reverse()) await thing.close();
  });
  afterAll(() => pool.end());

  const serve = async (receiver: Receiver) => {
    open.push(receiver);
    await receiver.start();
    const http = await serveOverHttp(receiver);
    open.push(http);
    return http;
  };

  it('answers a delivery whose handler sleeps 3 s before the handler finished, then handles it', async () => {
    let finished = false;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema, transactional: true }),
      deferred: true,
      handlers: {
        async LoyaltyRuleChanged() {
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          finished = true;
        },
      },
    });
    const http = await serve(receiver);
    const event = outboundEvent('LoyaltyRuleChanged');
    const answer = await http.post(signedDelivery(event));
    expect([answer.status, answer.body.outcome, finished]).toEqual([200, 'stored', false]);
    await until(async () => finished);
    await until(async () =>
      (await receiver.list({ state: 'handled' })).some((r) => r.eventId === event.eventId),
    );
  });

  it('lists a handler that always throws as dead with its last error after its attempts; replay runs it again', async () => {
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema }),
      deferred: true,
      retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 50 },
      handlers: {
        LoyaltyRuleChanged() {
          runs++;
          throw new Error(`still broken (run ${runs})`);
        },
      },
    });
    const http = await serve(receiver);
    const event = outboundEvent('LoyaltyRuleChanged');
    expect((await http.post(signedDelivery(event))).status).toBe(200);
    const deadOne = async () =>
      (await receiver.list({ state: 'dead' })).find((r) => r.eventId === event.eventId);
    await until(async () => (await deadOne()) !== undefined);
    expect(await deadOne()).toMatchObject({ attempts: 3, lastError: 'Error: still broken (run 3)' });
    expect(runs).toBe(3);

    expect(await receiver.replay(event.eventId)).toBe(true);
    await until(async () => (await deadOne())?.attempts === 3 && runs === 6);
  });

  it('parks a schemaVersion 2 delivery without running its handler; without deferred it is answered 503', async () => {
    let runs = 0;
    const handlers = { LoyaltyRuleChanged: () => void runs++ };
    const deferred = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(pool, { schema }),
      deferred: true,
      handlers,
    });
    const http = await serve(deferred);
    const v2 = { ...outboundEvent('LoyaltyRuleChanged'), schemaVersion: 2 };
    expect((await http.post(signedDelivery(v2))).status).toBe(200);
    const parked = (await deferred.list({ state: 'parked' })).find((r) => r.eventId === v2.eventId);
    expect(parked?.lastError).toContain('schemaVersion 2');

    const immediate = createReceiver({ secrets: SECRET, inbox: postgresInbox(pool, { schema }), handlers });
    const direct = await serveOverHttp(immediate);
    open.push(direct);
    const answer = await direct.post(
      signedDelivery({ ...v2, eventId: outboundEvent('LoyaltyRuleChanged').eventId }),
    );
    expect([answer.status, answer.body.code]).toEqual([503, 'SCHEMA_VERSION_UNSUPPORTED']);
    expect(runs).toBe(0);
  });

  it('marks handlers that succeeded in the claims that follow them: far fewer writes than deliveries, each handled once', async () => {
    const marksSchema = uniqueName('deferred_marks');
    await migrate(pool, { schema: marksSchema });
    const { pool: counted, statements } = countingPool(url, 4, {
      // Claims carrying marks, and marks no claim came for, written together (claiming none).
      carried: (text) => text.startsWith('WITH marked AS'),
      alone: (text) => text.startsWith('UPDATE') && text.includes("SET state = 'handled'"),
    });
    const runs = new Map<string, number>();
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(counted, { schema: marksSchema }),
      deferred: true,
      handlers: {
        async LoyaltyRuleChanged(event) {
          runs.set(event.eventId, (runs.get(event.eventId) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 10));
        },
      },
    });
    const deliveries = 96;
    for (let i = 0; i < deliveries; i++) {
      const answer = await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
      expect(answer.status).toBe(200);
    }
    open.push(receiver);
    await receiver.start();
    await until(async () => (await receiver.stats()).handled === deliveries);
    expect([...runs.values()]).toEqual(Array(deliveries).fill(1));
    // Half the slots free before each claim: each claim carries several marks, and the marks no
    // claim came for are written in one statement, never one each.
    expect(statements.carried).toBeLessThan(deliveries / 3);
    expect(statements.alone).toBe(0);
    await receiver.close();
    await counted.end();
  });

  it('batches the marks of handlers that end one by one once the inbox ran dry: one claim per 50 ms, not one per handler', async () => {
    const drySchema = uniqueName('deferred_dry');
    await migrate(pool, { schema: drySchema });
    const { pool: counted, statements } = countingPool(url, 4, {
      claims: (text) => text.startsWith('WITH marked AS'),
    });
    const ends: number[] = [];
    let started = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: postgresInbox(counted, { schema: drySchema }),
      deferred: true,
      handlers: {
        // Eight handlers, each ending 15 ms after the one before.
        async LoyaltyRuleChanged() {
          const wait = 10 + 15 * started++;
          await new Promise((resolve) => setTimeout(resolve, wait));
          ends.push(Date.now());
        },
      },
    });
    for (let i = 0; i < 8; i++) await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
    open.push(receiver);
    await receiver.start();
    await until(async () => (await receiver.stats()).handled === 8);
    // The first claim took all eight (room for 16: the inbox ran dry). Each later claim carries
    // the marks of every handler that ended in the 50 ms before it; a poll may add one.
    const spread = Math.max(...ends) - Math.min(...ends);
    expect(statements.claims).toBeLessThanOrEqual(1 + Math.floor(spread / 50) + 2);
    await receiver.close();
    await counted.end();
  });

  it("markHandledAndClaim marks only this owner's claims and never claims what it marks", async () => {
    const storeSchema = uniqueName('deferred_store');
    await migrate(pool, { schema: storeSchema });
    const inbox = postgresInbox(pool, { schema: storeSchema, leaseMs: 60_000 });
    const receiver = createReceiver({
      secrets: SECRET,
      inbox,
      deferred: true,
      handlers: { LoyaltyRuleChanged: () => undefined },
    });
    for (let i = 0; i < 4; i++) await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
    const mine = await inbox.claimDue('owner-a', 2);
    const theirs = await inbox.claimDue('owner-b', 1);
    const lost = { ...theirs[0]!, owner: 'owner-a' };
    const { marked, claims } = await inbox.markHandledAndClaim!([mine[0]!, lost], 'owner-a', 10);
    expect(marked).toEqual([mine[0]!.eventId]);
    expect(claims).toHaveLength(1);
    expect([mine[0]!.eventId, mine[1]!.eventId, theirs[0]!.eventId]).not.toContain(claims[0]!.eventId);
    expect(await inbox.stats()).toMatchObject({ pending: 3, handled: 1 });

    // With no room, it only marks.
    const none = await inbox.markHandledAndClaim!([mine[1]!, claims[0]!], 'owner-a', 0);
    expect(new Set(none.marked)).toEqual(new Set([mine[1]!.eventId, claims[0]!.eventId]));
    expect(none.claims).toEqual([]);
    expect(await inbox.stats()).toMatchObject({ pending: 1, handled: 3 });
  });
});
