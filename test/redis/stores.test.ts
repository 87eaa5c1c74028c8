import { Redis } from 'ioredis';
import { redisInbox, redisRuleStore } from 'loyalty-partner-sdk/redis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { ruleStoreConformance } from '../webhooks-stores/rule-store-conformance.js';

describeWithRedis('Redis stores', (url) => {
  const prefix = `${uniqueName('t')}:`;
  const ioredis = new Redis(url);
  const nodeRedis = createClient({ url });
  beforeAll(async () => {
    await nodeRedis.connect();
  });
  afterAll(async () => {
    ioredis.disconnect();
    await nodeRedis.quit();
  });

  const clients = { ioredis, 'node-redis': nodeRedis } as const;
  for (const [name, client] of Object.entries(clients)) {
    // The inbox conformance suite runs from test/webhooks-stores/stores.ts (one line per store).
    describe(`redisRuleStore on ${name}`, () =>
      ruleStoreConformance(() => redisRuleStore(client, { prefix })));
  }

  it('keeps a done marker 25 hours and a claim for its lease', async () => {
    const inbox = redisInbox(ioredis, { prefix, leaseMs: 30_000 });
    const key = { eventId: 'e-ttl', eventType: 'LoyaltyRuleChanged', tenantId: '' };
    await inbox.begin(key);
    const lease = await ioredis.pttl(`${prefix}inbox:e-ttl`);
    expect(lease).toBeGreaterThan(25_000);
    expect(lease).toBeLessThanOrEqual(30_000);
    await inbox.complete(key);
    const kept = await ioredis.pttl(`${prefix}inbox:e-ttl`);
    expect(kept).toBeGreaterThan(25 * 3_600_000 - 60_000);
    expect(kept).toBeLessThanOrEqual(25 * 3_600_000);
  });

  it('does not let a process that lost its claim to a takeover release the new owner’s claim', async () => {
    const first = redisInbox(ioredis, { prefix, leaseMs: 50 });
    const second = redisInbox(nodeRedis, { prefix, leaseMs: 60_000 });
    const key = { eventId: 'e-takeover', eventType: 'LoyaltyRuleChanged', tenantId: '' };
    expect(await first.begin(key)).toBe('new');
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await second.begin(key)).toBe('new');
    await first.release(key);
    expect(await second.begin(key)).toBe('in-progress');
  });
});
