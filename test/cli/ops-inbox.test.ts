import { Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver, type DeferredInboxStore } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, describeWithRedis, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';
import { cli } from './run.js';

async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Issue 33, must show 2, on both inboxes: a deferred receiver's delivery whose handler kept
 * failing is listed dead with its error; `inbox replay` makes the running worker handle it.
 */
function replaysADeadDelivery(
  inbox: () => DeferredInboxStore,
  flags: () => string[],
  auditOf: () => Promise<unknown[]>,
) {
  let broken = true;
  const handled: string[] = [];
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: inbox(),
    deferred: true,
    retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
    handlers: {
      LoyaltyRuleChanged(event) {
        if (broken) throw new Error('the rules table is locked');
        handled.push(event.eventId);
      },
    },
  });
  let http: Awaited<ReturnType<typeof serveOverHttp>>;
  beforeAll(async () => {
    await receiver.start();
    http = await serveOverHttp(receiver);
  });
  afterAll(async () => {
    await http?.close();
    await receiver.close();
  });

  it('lists the dead delivery with its error; replay makes the running receiver handle it, audited', async () => {
    const event = outboundEvent('LoyaltyRuleChanged');
    expect((await http.post(signedDelivery(event))).status).toBe(200);
    await until(async () =>
      (await receiver.list({ state: 'dead' })).some((r) => r.eventId === event.eventId),
    );

    const table = await cli(['inbox', 'list', '--state', 'dead', ...flags()]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(
      new RegExp(
        `${event.eventId}\\s+merchant-1\\s+LoyaltyRuleChanged\\s+dead\\s+2\\s+\\S+\\s+Error: the rules table is locked`,
      ),
    );
    const stats = JSON.parse((await cli(['inbox', 'stats', '--json', ...flags()])).stdout);
    expect(stats).toMatchObject({
      dead: 1,
      pending: 0,
      tenants: [{ tenantId: 'merchant-1', states: { dead: 1 }, oldestPendingAt: null }],
    });
    const perTenant = await cli(['inbox', 'stats', ...flags()]);
    expect(perTenant.stdout).toMatch(
      /TENANT\s+PENDING\s+DEAD\s+PARKED\s+HANDLED\s+OLDEST PENDING\nmerchant-1\s+0\s+1\s+0\n\(all\)\s+0\s+1\s+0\s+0\n/,
    );

    broken = false;
    const replay = await cli(['inbox', 'replay', event.eventId, '--actor', 'ops-bot', ...flags()]);
    expect([replay.code, replay.stdout]).toEqual([
      0,
      expect.stringMatching(new RegExp(`${event.eventId}\\s+done`)),
    ]);
    await until(async () => handled.includes(event.eventId));
    expect(await auditOf()).toEqual([
      expect.objectContaining({ actor: 'ops-bot', action: 'inbox.replay', target: event.eventId }),
    ]);
  });

  it('discards by --all --state only with --yes or a yes, and says nothing was done otherwise', async () => {
    const none = await cli(['inbox', 'discard', '--all', '--state', 'parked', '--yes', ...flags()]);
    expect([none.code, none.stderr]).toEqual([0, 'nothing to discard: no parked deliveries\n']);
    const usage = await cli(['inbox', 'discard', ...flags()]);
    expect([usage.code, usage.stderr]).toEqual([2, expect.stringContaining('give one or more event ids')]);
  });
}

describeWithPostgres('loyalty-partner inbox, on a Postgres inbox', (url) => {
  const schema = uniqueName('ops_inbox');
  const pool = new pg.Pool({ connectionString: url, max: 6 });
  beforeAll(() => migrate(pool, { schema }));
  afterAll(() => pool.end());
  replaysADeadDelivery(
    () => postgresInbox(pool, { schema }),
    () => ['--postgres', url, '--schema', schema],
    async () => (await pool.query(`SELECT actor, action, target FROM "${schema}".audit`)).rows,
  );
});

describeWithRedis('loyalty-partner inbox, on a Redis inbox', (url) => {
  const prefix = `${uniqueName('ops')}:`;
  const redis = new Redis(url);
  afterAll(() => redis.quit());
  replaysADeadDelivery(
    () => redisInbox(redis, { prefix }),
    () => ['--redis', url, '--prefix', prefix],
    async () => (await redis.lrange(`${prefix}{inbox}:audit`, 0, -1)).map((line) => JSON.parse(line)),
  );
  it('takes the server from REDIS_URL when no flag and no DATABASE_URL is given', async () => {
    const { code, stdout } = await cli(['inbox', 'stats', '--json', '--prefix', prefix], {
      env: { REDIS_URL: url },
    });
    const stats = JSON.parse(stdout);
    expect([code, stats.pending + stats.handled, stats.dead]).toEqual([0, 1, 0]);
  });
});
