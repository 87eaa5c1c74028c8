import { Cluster } from 'ioredis';
import { redisInbox, redisRuleStore } from 'loyalty-partner-sdk/redis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RealRedisCluster, startRedisCluster } from '../support/real-servers.js';
import { describeWithRedis, uniqueName } from '../support/servers.js';
import { deferredConformance } from '../webhooks-stores/deferred-conformance.js';
import { inboxConformance } from '../webhooks-stores/inbox-conformance.js';
import { ruleStoreConformance } from '../webhooks-stores/rule-store-conformance.js';
import { receiverScenarios } from './receiver-scenarios.js';

/*
 * Issue 40 item 3: the Redis stores on a three-master Redis Cluster, with ioredis `Cluster` and
 * node-redis `createCluster`: the same conformance suites as on a standalone Redis.
 */

const connectCluster = (urls: readonly string[]) =>
  createCluster({ rootNodes: urls.map((url) => ({ url })) }).connect();
type NodeRedisCluster = Awaited<ReturnType<typeof connectCluster>>;

describeWithRedis('Redis stores on a Redis Cluster', () => {
  let cluster: RealRedisCluster;
  let ioredis: Cluster;
  let nodeRedis: NodeRedisCluster;
  beforeAll(async () => {
    cluster = await startRedisCluster();
    ioredis = new Cluster([...cluster.nodes]);
    nodeRedis = await connectCluster(cluster.urls);
  }, 60_000);
  afterAll(async () => {
    ioredis?.disconnect();
    await nodeRedis?.close();
    await cluster?.stop();
  });

  const prefix = `${uniqueName('c')}:`;
  const clients = { 'ioredis Cluster': () => ioredis, 'node-redis createCluster': () => nodeRedis };
  for (const [name, client] of Object.entries(clients)) {
    describe(`redisInbox on ${name}`, () =>
      inboxConformance(({ leaseMs }) => redisInbox(client(), { prefix, leaseMs })));
    describe(`redisInbox on ${name}, deferred`, () =>
      deferredConformance(({ leaseMs }) => redisInbox(client(), { prefix, leaseMs })));
    describe(`redisRuleStore on ${name}`, () =>
      ruleStoreConformance(() => redisRuleStore(client(), { prefix })));
    describe(`createReceiver with redisInbox on ${name}`, () => receiverScenarios(client));
  }

  it('keeps every inbox key in one hash slot, and a prefix with its own hash tag as it is', async () => {
    const inbox = redisInbox(ioredis, { prefix: 'shop-7:{tagged}:' });
    const delivery = {
      eventId: 'e-slot',
      eventType: 'LoyaltyRuleChanged',
      tenantId: 't',
      rawBody: '{}',
      correlationId: 'c',
      signatureTimestamp: 1,
      secretIndex: 0,
      receivedAt: Date.now(),
    };
    expect(await inbox.store(delivery, 'pending')).toBe('stored');
    const keys = [];
    for (const node of ioredis.nodes('master')) keys.push(...(await node.keys('shop-7:*')));
    expect(keys.sort()).toEqual([
      'shop-7:{tagged}:due',
      'shop-7:{tagged}:e:e-slot',
      'shop-7:{tagged}:s:pending',
    ]);
    const slots = new Set(await Promise.all(keys.map((key) => ioredis.cluster('KEYSLOT', key))));
    expect(slots.size).toBe(1);
  });
});
