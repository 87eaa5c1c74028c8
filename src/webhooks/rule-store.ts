import type { PayloadOf } from '../contract/schemas/envelope.js';

/**
 * The payload of a LoyaltyRuleChanged event: one rule of one store, with its `ruleVersion`.
 *
 * @example
 * ```ts
 * import type { LoyaltyRule } from 'loyalty-partner-sdk/webhooks';
 * const cardOf = (rule: LoyaltyRule) => (rule.ruleType === 'StampRule' ? rule.payload.stampCardId : undefined);
 * ```
 */
export type LoyaltyRule = PayloadOf<'LoyaltyRuleChanged'>;
/** `EarnRate` or `StampRule`. */
export type RuleType = LoyaltyRule['ruleType'];

/**
 * Which rule a version belongs to: versions are counted per tenant, store and rule type, and
 * per stamp card for stamp rules (a store may run several cards).
 *
 * @example
 * ```ts
 * import type { RuleKey } from 'loyalty-partner-sdk/webhooks';
 * const card: RuleKey = { tenantId: 'merchant-1', externalStoreId: 'store-7', ruleType: 'StampRule', stampCardId: 'card-1' };
 * ```
 */
export type RuleKey<K extends RuleType = RuleType> = {
  [T in K]: {
    /** The delivery's `X-TenantId` (`''` for a receiver without tenants). */
    tenantId: string;
    externalStoreId: string;
    ruleType: T;
  } & (T extends 'StampRule' ? { stampCardId: string } : { stampCardId?: undefined });
}[K];

/** What `putIfNewer` (and `RuleCache.apply`) report. */
export interface RuleApplyResult {
  /** `true` when the rule was stored: its `ruleVersion` is greater than the one stored before. */
  applied: boolean;
  /** The version stored before this call, `undefined` when there was none. */
  previousVersion: number | undefined;
}

/**
 * Where a rule cache keeps the current rule of each {@link RuleKey}. `putIfNewer` must compare
 * and write atomically, so that two events applied concurrently cannot let the older win. In
 * SQL: `INSERT ... ON CONFLICT (key) DO UPDATE SET ... WHERE rules.rule_version <
 * excluded.rule_version`. Every method may return a promise.
 *
 * @example
 * ```ts
 * import type { LoyaltyRule, RuleKey, RuleVersionStore } from 'loyalty-partner-sdk/webhooks';
 *
 * const rules = new Map<string, LoyaltyRule>();
 * const id = (key: RuleKey) => JSON.stringify([key.tenantId, key.externalStoreId, key.ruleType, key.stampCardId]);
 * export const mapStore: RuleVersionStore = {
 *   get: (key) => rules.get(id(key)),
 *   putIfNewer(key, rule) {
 *     const previousVersion = rules.get(id(key))?.ruleVersion;
 *     const applied = previousVersion === undefined || rule.ruleVersion > previousVersion;
 *     if (applied) rules.set(id(key), rule);
 *     return { applied, previousVersion };
 *   },
 * };
 * ```
 */
export interface RuleVersionStore {
  get(key: RuleKey): LoyaltyRule | undefined | Promise<LoyaltyRule | undefined>;
  /** Stores `rule` only when no rule or an older `ruleVersion` is stored under `key`. */
  putIfNewer(key: RuleKey, rule: LoyaltyRule): RuleApplyResult | Promise<RuleApplyResult>;
}

/**
 * The default rule store: the current rule of every key in this process's memory, one entry per
 * key (a few hundred bytes each). Synchronous, so `putIfNewer` is atomic by construction.
 *
 * @example
 * ```ts
 * import { createRuleCache, memoryRuleStore } from 'loyalty-partner-sdk/webhooks';
 * const rules = createRuleCache({ store: memoryRuleStore() });
 * ```
 */
export function memoryRuleStore(): RuleVersionStore {
  const rules = new Map<string, LoyaltyRule>();
  return {
    get: (key) => rules.get(ruleId(key)),
    putIfNewer(key, rule) {
      const id = ruleId(key);
      const previousVersion = rules.get(id)?.ruleVersion;
      const applied = previousVersion === undefined || rule.ruleVersion > previousVersion;
      if (applied) rules.set(id, rule);
      return { applied, previousVersion };
    },
  };
}

const ruleId = (key: RuleKey): string =>
  JSON.stringify([key.tenantId, key.externalStoreId, key.ruleType, key.stampCardId ?? null]);
