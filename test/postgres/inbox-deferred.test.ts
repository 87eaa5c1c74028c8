import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createReceiver, type Receiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';

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
});
