import { LoyaltyValidationError, toValidationIssues } from '../contract/errors.js';
import type { Envelope } from '../contract/schemas/envelope.js';
import {
  type LoyaltyRule,
  memoryRuleStore,
  type RuleApplyResult,
  type RuleKey,
  type RuleType,
  type RuleVersionStore,
} from './rule-store.js';

/** Options of {@link createRuleCache}. */
export interface RuleCacheOptions {
  /**
   * Where the current rules live; a database-backed store lets several processes share them.
   * @default memoryRuleStore()
   */
  store?: RuleVersionStore;
}

/**
 * The current loyalty rules of every tenant and store, fed by LoyaltyRuleChanged events.
 *
 * @example
 * ```ts
 * import type { RuleCache } from 'loyalty-partner-sdk/webhooks';
 * const stampCard = (rules: RuleCache) =>
 *   rules.get({ tenantId: 'merchant-1', externalStoreId: 'store-7', ruleType: 'StampRule', stampCardId: 'card-1' });
 * ```
 */
export interface RuleCache {
  /**
   * Stores the rule of a LoyaltyRuleChanged event (envelope or payload) when its `ruleVersion` is
   * greater than the stored one for its key; events arrive in any order (spec 6.6).
   *
   * @param ctx - the handler's context; only `tenantId` is used (default `''`)
   * @throws {LoyaltyValidationError} `INVALID_PAYLOAD` when the rule breaks the contract
   */
  apply(
    event: Envelope<'LoyaltyRuleChanged'> | LoyaltyRule,
    ctx?: { tenantId: string },
  ): Promise<RuleApplyResult>;
  /** The current rule of a key, or `undefined` when none was applied yet. */
  get<K extends RuleType>(key: RuleKey<K>): Promise<Extract<LoyaltyRule, { ruleType: K }> | undefined>;
}

/**
 * A cache of the merchant's loyalty rules that applies LoyaltyRuleChanged events in version
 * order whatever order they arrive in: an older `ruleVersion` never overwrites a newer one.
 *
 * @example
 * ```ts
 * import { createReceiver, createRuleCache } from 'loyalty-partner-sdk/webhooks';
 *
 * const rules = createRuleCache();
 * const receiver = createReceiver({
 *   secrets: 'whsec_example',
 *   handlers: { LoyaltyRuleChanged: (event, ctx) => rules.apply(event, ctx) },
 * });
 * const earnRate = await rules.get({ tenantId: 'merchant-1', externalStoreId: 'store-7', ruleType: 'EarnRate' });
 * console.log(earnRate?.payload.methodType); // 'OnPurchase' | 'OnVisit' | undefined
 * ```
 */
export function createRuleCache(options: RuleCacheOptions = {}): RuleCache {
  const store = options.store ?? memoryRuleStore();
  if (typeof store?.get !== 'function' || typeof store.putIfNewer !== 'function') {
    throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid createRuleCache options', [
      { path: 'store', message: 'must have get and putIfNewer methods (a RuleVersionStore)' },
    ]);
  }
  return {
    async apply(event, ctx) {
      const candidate =
        'eventType' in event && event.eventType === 'LoyaltyRuleChanged' ? event.payload : event;
      // Imported here, not at the top: zod stays off the import path of /webhooks until it validates.
      const { loyaltyRuleChangedSchema } = await import('../contract/schemas/outbound-payloads.js');
      const parsed = loyaltyRuleChangedSchema.safeParse(candidate);
      if (!parsed.success) {
        const issues = toValidationIssues(parsed.error.issues, 'payload');
        throw new LoyaltyValidationError('INVALID_PAYLOAD', 'Invalid LoyaltyRuleChanged payload', issues, {
          eventType: 'LoyaltyRuleChanged',
        });
      }
      const rule = parsed.data;
      return store.putIfNewer(keyOf(ctx?.tenantId ?? '', rule), rule);
    },
    async get(key) {
      return (await store.get(key as RuleKey)) as
        | Extract<LoyaltyRule, { ruleType: typeof key.ruleType }>
        | undefined;
    },
  };
}

function keyOf(tenantId: string, rule: LoyaltyRule): RuleKey {
  const { externalStoreId } = rule;
  return rule.ruleType === 'StampRule'
    ? { tenantId, externalStoreId, ruleType: 'StampRule', stampCardId: rule.payload.stampCardId }
    : { tenantId, externalStoreId, ruleType: 'EarnRate' };
}
