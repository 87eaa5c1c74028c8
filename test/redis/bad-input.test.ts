import { Redis } from 'ioredis';
import { RedisStoreError, redisInbox, redisRuleStore } from 'loyalty-partner-sdk/redis';
import { createReceiver, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { freePort } from '../support/real-servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';

describe('Redis stores refuse bad input with a typed error that says what to fix', () => {
  for (const [name, redis] of [
    ['a URL', 'redis://127.0.0.1:6379'],
    ['an empty object', {}],
    ['undefined', undefined],
  ] as const) {
    it(`redis that is ${name}`, () => {
      for (const build of [() => redisInbox(redis as never), () => redisRuleStore(redis as never)]) {
        expect(build).toThrow(RedisStoreError);
        expect(build).toThrow(/new Redis\(url\) or new Cluster\(nodes\)/);
        expect(build).toThrow(/createCluster\(\{ rootNodes \}\)\.connect\(\)/);
      }
    });
  }

  it('a node-redis client in legacyMode (callbacks): names client.v4', () => {
    const legacy = { sendCommand: () => undefined, isOpen: true, options: { legacyMode: true } };
    expect(() => redisInbox(legacy as never)).toThrow(
      expect.objectContaining({ code: 'NOT_A_CLIENT', message: expect.stringContaining('client.v4') }),
    );
  });

  it('options out of range', () => {
    expect(() => redisInbox(new Redis({ lazyConnect: true }), { leaseMs: 0, ttlMs: Number.NaN })).toThrow(
      expect.objectContaining({
        code: 'INVALID_OPTIONS',
        message: expect.stringContaining('leaseMs must be'),
      }),
    );
  });
});

describe('an unreachable Redis: UNREACHABLE naming the fix, and the delivery answered 503', () => {
  const clients = {
    ioredis: async () => {
      const redis = new Redis({
        port: await freePort(),
        host: '127.0.0.1',
        maxRetriesPerRequest: 0,
        retryStrategy: () => null,
      });
      return redis.on('error', () => undefined); // the refused connection, reported by the store instead
    },
    // Created but never connected (or disconnected): node-redis refuses every command.
    'node-redis': async () => createClient({ url: `redis://127.0.0.1:${await freePort()}` }),
  };
  for (const [name, client] of Object.entries(clients)) {
    it(name, async () => {
      const failures: ReceiverFailure[] = [];
      const redis = await client();
      const receiver = createReceiver({
        secrets: SECRET,
        inbox: redisInbox(redis),
        handlers: { async LoyaltyRuleChanged() {} },
        onError: (failure) => {
          failures.push(failure);
        },
      });
      const http = await serveOverHttp(receiver);
      try {
        const answer = await http.post(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
        expect(answer).toMatchObject({ status: 503, body: { code: 'INBOX_UNAVAILABLE' } });
        expect((failures[0] as { cause?: unknown } | undefined)?.cause).toMatchObject({
          name: 'RedisStoreError',
          code: 'UNREACHABLE',
          message: expect.stringContaining('check that the server runs and that the client is connected'),
        });
      } finally {
        await http.close();
        if ('disconnect' in redis && typeof redis.disconnect === 'function') redis.disconnect();
      }
    });
  }
});
