/**
 * `loyalty-partner-sdk/redis`: the receiver stores on the user's own Redis client (ioredis or
 * node-redis). No driver is imported: the client is passed in and recognised by its shape.
 *
 * @module loyalty-partner-sdk/redis
 */
export type { RedisLike } from './client.js';
export { RedisStoreError } from './errors.js';
export { redisInbox } from './inbox.js';
export { migrateRedisInbox } from './migrate.js';
export { redisRuleStore } from './rule-store.js';
