/**
 * `loyalty-partner-sdk/redis`: the receiver stores on the user's own Redis client (ioredis or
 * node-redis). No driver is imported: the client is passed in and recognised by its shape.
 */
export type { IoRedisLike, NodeRedisLike, RedisLike } from './client.js';
export type { RedisStoreErrorCode } from './errors.js';
export { RedisStoreError } from './errors.js';
export type { RedisInboxOptions } from './inbox.js';
export { redisInbox } from './inbox.js';
export type { RedisRuleStoreOptions } from './rule-store.js';
export { redisRuleStore } from './rule-store.js';
