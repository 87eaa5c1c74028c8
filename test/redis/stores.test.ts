import { Redis } from 'ioredis';
import { redisInbox, redisRuleStore } from 'loyalty-partner-sdk/redis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { deferredConformance } from '../webhooks-stores/deferred-conformance.js';
import { inboxConformance } from '../webhooks-stores/inbox-conformance.js';
import { ruleStoreConformance } from '../webhooks-stores/rule-store-conformance.js';
import { receiverScenarios } from './receiver-scenarios.js';

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
    describe(`redisInbox on ${name}`, () =>
      inboxConformance(({ leaseMs }) => redisInbox(client, { prefix, leaseMs })));
    describe(`redisInbox on ${name}, deferred`, () =>
      deferredConformance(({ leaseMs }) => redisInbox(client, { prefix, leaseMs })));
    describe(`redisRuleStore on ${name}`, () =>
      ruleStoreConformance(() => redisRuleStore(client, { prefix })));
    describe(`createReceiver with redisInbox on ${name}`, () => receiverScenarios(() => client));
  }

  it('keeps the record of an event handled immediately 25 hours, under one hash tag', async () => {
    const inbox = redisInbox(ioredis, { prefix, leaseMs: 30_000 });
    const key = { eventId: 'e-ttl', eventType: 'LoyaltyRuleChanged', tenantId: '' };
    await inbox.begin(key);
    const record = `${prefix}{inbox}:e:e-ttl`;
    expect(await ioredis.hget(record, 'state')).toBe('pending');
    await inbox.complete(key);
    expect(await ioredis.hget(record, 'state')).toBe('handled');
    const kept = await ioredis.pttl(record);
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
