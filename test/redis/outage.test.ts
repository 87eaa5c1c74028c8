import express from 'express';
import { Redis } from 'ioredis';
import { expressWebhook } from 'loyalty-partner-sdk/express';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post } from '../adapters/conformance.js';
import { listen, type Target } from '../adapters/support/targets.js';
import { type RealServer, startRedis } from '../support/real-servers.js';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { outboundEvent, resolveSecrets, signedDelivery } from '../webhooks/support/deliveries.js';

/*
 * A receiver on a Redis inbox, as the docs set it up, while Redis is stalled or down: each
 * delivery is answered 503 INBOX_UNAVAILABLE after a bounded wait (the service retries), with
 * ioredis (which queues commands while disconnected) and with node-redis (whose connection
 * error, without a listener, used to end the process). And a Redis that may evict the inbox's
 * keys is reported once, at the store's first command.
 */

const connectNodeRedis = (url: string) => createClient({ url }).connect();
type Client = Redis | Awaited<ReturnType<typeof connectNodeRedis>>;

async function receiverOn(client: Client): Promise<Target> {
  const receiver = createReceiver({
    secrets: resolveSecrets,
    inbox: redisInbox(client, { prefix: `${uniqueName('outage')}:` }),
    handlers: { LoyaltyRuleChanged: () => undefined },
  });
  const app = express();
  app.post('/loyalty/webhooks', expressWebhook(receiver));
  return listen(app);
}

const delivery = () => signedDelivery(outboundEvent('LoyaltyRuleChanged'));

describeWithRedis('a Redis inbox while Redis is stalled or down', () => {
  for (const name of ['ioredis', 'node-redis'] as const) {
    describe(`with ${name}`, () => {
      let server: RealServer;
      let client: Client;
      let target: Target;
      beforeAll(async () => {
        server = await startRedis();
        if (name === 'ioredis') {
          client = new Redis(server.url);
        } else {
          // As the docs show it: connected, and nothing else set up.
          client = await connectNodeRedis(server.url);
        }
        target = await receiverOn(client);
        expect((await post(target, delivery())).status).toBe(200);
      });
      afterAll(async () => {
        await target?.close();
        if (client instanceof Redis) client.disconnect();
        else await client?.destroy?.();
        await server?.stop();
      });

      it('answers 503 INBOX_UNAVAILABLE to a delivery while Redis is stalled, then 200 once it answers', async () => {
        server.stall!(true);
        try {
          const answer = await post(target, delivery());
          expect([answer.status, answer.body.code]).toEqual([503, 'INBOX_UNAVAILABLE']);
        } finally {
          server.stall!(false);
        }
        expect((await post(target, delivery())).status).toBe(200);
      });

      it('answers 503 INBOX_UNAVAILABLE while Redis is down, and the process lives on', async () => {
        await server.stop();
        const answer = await post(target, delivery());
        expect([answer.status, answer.body.code]).toEqual([503, 'INBOX_UNAVAILABLE']);
        // A second one, after the client has seen the connection fail and is reconnecting.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect((await post(target, delivery())).status).toBe(503);
      });
    });
  }

  it('warns once, at the first command, when Redis may evict the inbox keys', async () => {
    const server = await startRedis();
    const client = new Redis(server.url);
    const warnings: { name: string; code?: string; message: string }[] = [];
    const onWarning = (warning: Error & { code?: string }) => {
      if (warning.code === 'LOYALTY_REDIS_EVICTION') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      await client.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const target = await receiverOn(client);
      expect((await post(target, delivery())).status).toBe(200);
      expect((await post(target, delivery())).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.message).toContain('allkeys-lru');
      expect(warnings[0]?.message).toContain('noeviction');
      await target.close();
    } finally {
      process.off('warning', onWarning);
      client.disconnect();
      await server.stop();
    }
  });
});
