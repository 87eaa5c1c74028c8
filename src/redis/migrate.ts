import { evalScript, type RedisLike, toRedisCommand } from './client.js';
import { toRedisError } from './errors.js';
import { REDIS_INBOX_DEFAULTS } from './inbox.js';
import { inboxKeys, NOW } from './inbox-scripts.js';

// KEYS: the new indexes (1..7), the new record (8), the old key (9). ARGV: id, kind ('dlv' | 'inbox').
// An event the new layout knows already is left as it is; the old key is deleted either way.
const MOVE = `local rec, old, id = KEYS[8], KEYS[9], ARGV[1]
if redis.call('EXISTS', rec) == 1 then return redis.call('DEL', old) end
if ARGV[2] == 'inbox' then
  local ttl = redis.call('PTTL', old)
  if redis.call('GET', old) == 'done' and ttl > 0 then
    redis.call('HSET', rec, 'state', 'handled', 'attempts', 1)
    redis.call('PEXPIRE', rec, ttl)
  end
  return redis.call('DEL', old)
end
${NOW}
local v = redis.call('HMGET', old, 'state', 'event_type', 'tenant_id', 'raw_body', 'correlation_id', 'sig_ts',
  'secret_index', 'received_at', 'attempts', 'next_at', 'last_error', 'settled_at')
if not v[1] then return redis.call('DEL', old) end
local SET = {pending = KEYS[2], handled = KEYS[3], dead = KEYS[4], parked = KEYS[5]}
redis.call('HSET', rec, 'state', v[1], 'type', v[2], 'tenant', v[3], 'corr', v[5], 'sig', v[6], 'idx', v[7],
  'received', v[8], 'attempts', v[9] or 0, 'next', v[10] or now)
if v[4] then redis.call('HSET', rec, 'body', v[4]) end
if v[11] then redis.call('HSET', rec, 'error', v[11]) end
if v[12] then redis.call('HSET', rec, 'settled', v[12]) end
redis.call('ZADD', SET[v[1]], v[8], id)
if v[1] == 'pending' then redis.call('ZADD', KEYS[1], math.max(now, tonumber(v[10] or '0')), id) end
if v[1] == 'handled' then redis.call('ZADD', KEYS[6], v[12] or now, id) end
return redis.call('DEL', old)`;

/**
 * Moves what an earlier version of `redisInbox` wrote (`<prefix>inbox:<eventId>` done markers and
 * `<prefix>dlv:…` stored deliveries) into the one-record layout of this version, so an upgrade
 * loses no stored delivery and runs no handled event again. Stop the old processes first (a
 * claim they hold is not carried over: its delivery is due again at once), run this once, then
 * start the new ones; running it twice is harmless. One Redis server (the old layout never ran
 * deferred handling on a Cluster). Resolves with how many old keys it moved.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import { migrateRedisInbox } from 'loyalty-partner-sdk/redis';
 * const moved = await migrateRedisInbox(new Redis('redis://127.0.0.1:6379'), { prefix: 'loyalty:' });
 * console.log(`${moved} keys moved`);
 * ```
 */
export async function migrateRedisInbox(
  redis: RedisLike,
  options: { prefix?: string } = {},
): Promise<number> {
  const prefix = options.prefix ?? REDIS_INBOX_DEFAULTS.prefix;
  const command = toRedisCommand(redis, 'migrateRedisInbox');
  const keys = inboxKeys(prefix);
  const indexes = new Set(
    ['due', 'settled', 's:pending', 's:handled', 's:dead', 's:parked'].map((n) => `${prefix}dlv:${n}`),
  );
  let moved = 0;
  try {
    for (const [kind, pattern] of [
      ['dlv', `${prefix}dlv:*`],
      ['inbox', `${prefix}inbox:*`],
    ] as const) {
      let cursor = '0';
      do {
        const reply = await command(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '500']);
        const [next, found] = reply as [string, string[]];
        cursor = next;
        for (const old of found) {
          if (indexes.has(old)) continue;
          const id = old.slice(`${prefix}${kind}:`.length);
          await evalScript(command, MOVE, [...keys.indexes, keys.record(id), old], [id, kind]);
          moved++;
        }
      } while (cursor !== '0');
    }
    for (const index of indexes) await command(['DEL', index], index);
  } catch (err) {
    throw toRedisError(err, 'migrateRedisInbox');
  }
  return moved;
}
