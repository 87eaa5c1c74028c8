import { Redis } from 'ioredis';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver, type InboxStore, memoryInbox } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUrl, redisUrl, uniqueName } from '../support/servers.js';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

/*
 * Issue 30 item 16: a handler slower than the inbox's lease is never run a second time by a
 * redelivery while its process lives: the receiver renews the claim while the handler runs.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 300;

const closers: Array<() => unknown> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

const stores: Record<string, () => Promise<InboxStore>> = {
  memoryInbox: async () => memoryInbox({ leaseMs: LEASE_MS }),
};
const pgUrl = postgresUrl();
if (pgUrl) {
  stores['postgresInbox (claims as rows)'] = async () => {
    const pool = new pg.Pool({ connectionString: pgUrl, max: 5 });
    closers.push(() => pool.end());
    const schema = uniqueName('heartbeat');
    await migrate(pool, { schema });
    return postgresInbox(pool, { schema, leaseMs: LEASE_MS });
  };
}
const rUrl = redisUrl();
if (rUrl) {
  stores.redisInbox = async () => {
    const redis = new Redis(rUrl);
    closers.push(() => redis.disconnect());
    return redisInbox(redis, { prefix: `${uniqueName('heartbeat')}:`, leaseMs: LEASE_MS });
  };
}

describe('a handler slower than the lease', () => {
  for (const [name, make] of Object.entries(stores)) {
    it(`${name}: runs once; a redelivery after the lease is told it is in progress`, async () => {
      let runs = 0;
      let finished = false;
      const receiver = createReceiver({
        secrets: SECRET,
        inbox: await make(),
        handlerTimeoutMs: 100,
        handlers: {
          async LoyaltyRuleChanged() {
            runs++;
            await sleep(LEASE_MS * 4);
            finished = true;
          },
        },
      });
      const delivery = signedDelivery(outboundEvent('LoyaltyRuleChanged'));
      expect(bodyOf(await receiver.handle(delivery)).code).toBe('HANDLER_TIMEOUT');
      await sleep(LEASE_MS * 2);
      const during = await receiver.handle(delivery);
      expect([during.status, bodyOf(during).code, finished]).toEqual([503, 'EVENT_IN_PROGRESS', false]);
      while (!finished) await sleep(20);
      await sleep(50);
      expect(bodyOf(await receiver.handle(delivery)).outcome).toBe('duplicate');
      expect(runs).toBe(1);
    });
  }
});
