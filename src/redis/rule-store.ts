import { mergeDefaults } from '../contract/merge-defaults.js';
import type { LoyaltyRule, RuleApplyResult, RuleKey, RuleVersionStore } from '../webhooks/rule-store.js';
import { evalScript, type RedisLike, toRedisCommand } from './client.js';
import { checkOptions, rethrowAs } from './errors.js';

/** Options of {@link redisRuleStore}. */
export interface RedisRuleStoreOptions {
  /**
   * Put before every key.
   * @default 'loyalty:'
   */
  prefix?: string;
}

// Compare and set in one script: Redis runs it atomically, so the older version never wins.
const PUT_IF_NEWER = `local previous = redis.call('HGET', KEYS[1], 'v')
if previous and tonumber(previous) >= tonumber(ARGV[1]) then return {0, previous} end
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'r', ARGV[2])
return {1, previous or ''}`;

/**
 * The rule cache's store in Redis: one hash per rule key holding the version and the rule;
 * `putIfNewer` compares and writes in one Lua script. Rules are kept until replaced. Each
 * operation touches one key, so it works the same on a Redis Cluster.
 *
 * @throws {RedisStoreError} `NOT_A_CLIENT` at once; `UNREACHABLE` or `COMMAND_FAILED` while running
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * import { createRuleCache } from 'loyalty-partner-sdk/webhooks';
 * import { redisRuleStore } from 'loyalty-partner-sdk/redis';
 * const redis = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
 * export const rules = createRuleCache({ store: redisRuleStore(redis) });
 * ```
 */
export function redisRuleStore(redis: RedisLike, options: RedisRuleStoreOptions = {}): RuleVersionStore {
  const { prefix } = mergeDefaults<RedisRuleStoreOptions>({ prefix: 'loyalty:' }, options);
  checkOptions('redisRuleStore', [['prefix', typeof prefix === 'string', 'must be a string']]);
  const command = toRedisCommand(redis, 'redisRuleStore');
  const keyOf = (key: RuleKey) =>
    `${prefix}rule:${JSON.stringify([key.tenantId, key.externalStoreId, key.ruleType, key.stampCardId ?? null])}`;

  return {
    async get(key): Promise<LoyaltyRule | undefined> {
      const k = keyOf(key);
      return command(['HGET', k, 'r'], k)
        .then((rule) => (typeof rule === 'string' ? (JSON.parse(rule) as LoyaltyRule) : undefined))
        .catch(rethrowAs('redisRuleStore get'));
    },
    async putIfNewer(key, rule): Promise<RuleApplyResult> {
      const args = [rule.ruleVersion, JSON.stringify(rule)];
      const reply = (await evalScript(command, PUT_IF_NEWER, [keyOf(key)], args).catch(
        rethrowAs('redisRuleStore putIfNewer'),
      )) as [number, string];
      const previous = String(reply[1]);
      return {
        applied: Number(reply[0]) === 1,
        previousVersion: previous === '' ? undefined : Number(previous),
      };
    },
  };
}
