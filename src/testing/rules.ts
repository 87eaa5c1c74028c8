import { type PayloadInput, type PayloadOf, parsePayload } from '../contract/index.js';

type RuleInput = PayloadInput<'LoyaltyRuleChanged'>;
type RuleOutput = PayloadOf<'LoyaltyRuleChanged'>;
type WireStampRule = Extract<RuleInput, { ruleType: 'StampRule' }>['payload'];
// Picked by name: the wire types are loose (an index signature), which `Omit` would flatten.
type StampFields =
  | 'stampCardId'
  | 'name'
  | 'minInvoiceAmount'
  | 'amountPerStamp'
  | 'cooldownDays'
  | 'isActive';

/** A points earn rule, exactly the EarnRate body of a LoyaltyRuleChanged event (spec 2.3). */
export type EarnRateRule = Extract<RuleInput, { ruleType: 'EarnRate' }>['payload'];

/**
 * A stamp card: the StampRule body of spec 2.3, plus what the dashboard knows and the wire does
 * not show. `mode: 'FreeEntry'` is a card whose only earning method is free entry (never
 * credited from a partner invoice, never announced by LoyaltyRuleChanged);
 * `earningMethodActive: false` is an active card whose earning method is switched off.
 */
export type StampCardRule = Pick<WireStampRule, StampFields> & {
  mode: WireStampRule['mode'] | 'FreeEntry';
  /** @default true */
  earningMethodActive?: boolean;
};

/** The earn rules of a merchant's store. */
export interface MerchantRules {
  /**
   * The points program's earn rule; `null` for a store without a points program.
   * @default 1 point per 10 riyals on purchase, no minimum
   */
  earnRate?: EarnRateRule | null;
  /**
   * The store's stamp cards.
   * @default one PerVisit card `card-coffee`, one stamp per visit, no minimum, no cooldown
   */
  stampCards?: readonly StampCardRule[];
}

/** A change the merchant makes in the dashboard (`emulator.changeRule`). */
export type RuleChange =
  | { ruleType: 'EarnRate'; payload: EarnRateRule | null }
  | { ruleType: 'StampRule'; payload: StampCardRule };

/**
 * The rules of a merchant created without `rules`.
 *
 * @example
 * ```ts
 * import { DEFAULT_RULES } from 'loyalty-partner-sdk/testing';
 * console.log(DEFAULT_RULES.earnRate.pointCostAmount); // 10 riyals buy 1 point
 * ```
 */
export const DEFAULT_RULES = {
  earnRate: {
    methodType: 'OnPurchase',
    pointCostAmount: 10,
    pointCostPoints: 1,
    pointsPerVisit: null,
    minimumPurchase: 0,
    isActive: true,
  },
  stampCards: [
    {
      stampCardId: 'card-coffee',
      name: 'Coffee card',
      mode: 'PerVisit',
      minInvoiceAmount: 0,
      amountPerStamp: null,
      cooldownDays: null,
      isActive: true,
    },
  ],
} as const satisfies Required<MerchantRules>;

/** An earn rule as stored, after the contract's schema applied its checks. */
export type StoredEarnRate = Extract<RuleOutput, { ruleType: 'EarnRate' }>['payload'] & {
  ruleVersion: number;
};
export type StoredStampCard = Pick<Extract<RuleOutput, { ruleType: 'StampRule' }>['payload'], StampFields> & {
  mode: StampCardRule['mode'];
  earningMethodActive: boolean;
  ruleVersion: number;
};

// Rules are checked with the contract's own LoyaltyRuleChanged schema, so a rule the service
// would refuse (a FreeEntry earn method) is refused here in the contract's words.
function checkRule<R extends RuleInput['ruleType']>(ruleType: R, payload: unknown, ruleVersion: number) {
  const parsed = parsePayload('LoyaltyRuleChanged', {
    externalStoreId: 'store',
    ruleType,
    ruleVersion,
    effectiveFrom: '2000-01-01T00:00:00Z',
    payload,
  } as RuleInput);
  return parsed.payload as Extract<RuleOutput, { ruleType: R }>['payload'];
}

/** Validates an earn rule; throws `LoyaltyValidationError`. */
export function parseEarnRate(rule: EarnRateRule, ruleVersion: number): StoredEarnRate {
  return { ...checkRule('EarnRate', rule, ruleVersion), ruleVersion };
}

/** Validates a stamp card (a FreeEntry card as if it were PerVisit); throws `LoyaltyValidationError`. */
export function parseStampCard(card: StampCardRule, ruleVersion: number): StoredStampCard {
  const { earningMethodActive = true, mode, ...wire } = card;
  const parsed = checkRule(
    'StampRule',
    { ...wire, mode: mode === 'FreeEntry' ? 'PerVisit' : mode },
    ruleVersion,
  );
  return { ...parsed, mode, earningMethodActive, ruleVersion };
}

/** A rule as LoyaltyRuleChanged carries it: its type, its version and its wire fields. */
export type WireRule = { ruleVersion: number } & (
  | { ruleType: 'EarnRate'; payload: EarnRateRule }
  | { ruleType: 'StampRule'; payload: WireStampRule }
);

/** A stamp card as the partner receives it; a FreeEntry card has no wire form. */
export function wireStampRule(card: StoredStampCard): WireRule | undefined {
  if (card.mode === 'FreeEntry') return undefined;
  const payload: WireStampRule = {
    stampCardId: card.stampCardId,
    name: card.name,
    mode: card.mode,
    minInvoiceAmount: card.minInvoiceAmount,
    amountPerStamp: card.amountPerStamp ?? null,
    cooldownDays: card.cooldownDays ?? null,
    isActive: card.isActive,
  };
  return { ruleType: 'StampRule', ruleVersion: card.ruleVersion, payload };
}

export function wireEarnRate({ ruleVersion, ...payload }: StoredEarnRate): WireRule {
  return { ruleType: 'EarnRate', ruleVersion, payload };
}
