import { createServer, type Server, Socket } from 'node:net';
import { Redis } from 'ioredis';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { createClient } from 'redis';
import { afterEach, expect, it } from 'vitest';
import { type RealServer, startRedis } from '../support/real-servers.js';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';

/*
 * Issue 40 item 3: after a failover, the address the client was given leads to the new primary,
 * but its open connection still reaches the old one, now a replica answering READONLY. The store
 * makes the client connect again instead of failing every delivery from then on.
 */

/** A TCP front (like a managed Redis's primary endpoint): new connections go to `target`. */
function endpoint(target: { port: number }): Promise<Server & { port: number }> {
  const server = createServer((inbound) => {
    const outbound = new Socket().connect(target.port, '127.0.0.1');
    inbound.pipe(outbound).pipe(inbound);
    const close = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on('error', close).on('close', close);
    outbound.on('error', close).on('close', close);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(Object.assign(server, { port: (server.address() as { port: number }).port })),
    ),
  );
}

const portOf = (server: RealServer) => Number(new URL(server.url).port);

describeWithRedis('a Redis inbox after a failover', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  const clients = {
    ioredis: (url: string) => new Redis(url),
    'node-redis': (url: string) => createClient({ url }).connect(),
  };
  for (const [name, connect] of Object.entries(clients)) {
    it(`${name}: connects again on READONLY, and the deliveries after the failover are handled`, async () => {
      const [oldPrimary, newPrimary] = [await startRedis(), await startRedis()];
      cleanup.push(
        () => oldPrimary.stop(),
        () => newPrimary.stop(),
      );
      const target = { port: portOf(oldPrimary) };
      const front = await endpoint(target);
      cleanup.push(() => new Promise((resolve) => front.close(resolve)));
      const client = await connect(`redis://127.0.0.1:${front.port}`);
      cleanup.push(async () => {
        if (client instanceof Redis) client.disconnect();
        else await client.destroy();
      });
      let runs = 0;
      const receiver = createReceiver({
        secrets: SECRET,
        inbox: redisInbox(client, { prefix: `${uniqueName('failover')}:` }),
        handlers: { LoyaltyRuleChanged: () => void runs++ },
      });
      cleanup.push(() => receiver.close());
      expect((await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')))).status).toBe(200);

      // The failover: the old primary follows the new one, and the endpoint leads to the new one.
      const old = new Redis(oldPrimary.url);
      await old.call('REPLICAOF', '127.0.0.1', String(portOf(newPrimary)));
      old.disconnect();
      target.port = portOf(newPrimary);

      const deadline = Date.now() + 20_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline)
        status = (await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')))).status;
      expect(status).toBe(200);
      expect(runs).toBe(2);
    });
  }
});
