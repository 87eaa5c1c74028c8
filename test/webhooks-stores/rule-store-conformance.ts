import { randomUUID } from 'node:crypto';
import type { LoyaltyRule, RuleKey, RuleVersionStore } from 'loyalty-partner-sdk/webhooks';
import { expect, it } from 'vitest';

/** What every rule store promises, run against memoryRuleStore, Postgres and Redis stores. */
export function ruleStoreConformance(make: () => RuleVersionStore): void {
  const keyOf = (): RuleKey<'EarnRate'> => ({
    tenantId: 'merchant-1',
    externalStoreId: `store-${randomUUID()}`,
    ruleType: 'EarnRate',
  });
  const rule = (key: RuleKey<'EarnRate'>, ruleVersion: number): LoyaltyRule =>
    ({
      externalStoreId: key.externalStoreId,
      ruleType: 'EarnRate',
      ruleVersion,
      payload: { pointsPerCurrencyUnit: ruleVersion },
    }) as unknown as LoyaltyRule;

  it('has nothing for an unknown key, then the stored rule as it was given', async () => {
    const store = make();
    const key = keyOf();
    expect(await store.get(key)).toBeUndefined();
    expect(await store.putIfNewer(key, rule(key, 3))).toEqual({ applied: true, previousVersion: undefined });
    expect(await store.get(key)).toEqual(rule(key, 3));
  });

  it('keeps the newer rule when an older or equal version arrives late', async () => {
    const store = make();
    const key = keyOf();
    await store.putIfNewer(key, rule(key, 7));
    expect(await store.putIfNewer(key, rule(key, 5))).toEqual({ applied: false, previousVersion: 7 });
    expect(await store.putIfNewer(key, rule(key, 7))).toEqual({ applied: false, previousVersion: 7 });
    expect(await store.putIfNewer(key, rule(key, 9))).toEqual({ applied: true, previousVersion: 7 });
    expect((await store.get(key))?.ruleVersion).toBe(9);
  });

  it('keeps stamp cards of one store apart', async () => {
    const store = make();
    const base = {
      tenantId: 'merchant-1',
      externalStoreId: `store-${randomUUID()}`,
      ruleType: 'StampRule',
    } as const;
    const card = (stampCardId: string, ruleVersion: number) =>
      ({ ...base, ruleVersion, payload: { stampCardId } }) as unknown as LoyaltyRule;
    await store.putIfNewer({ ...base, stampCardId: 'a' }, card('a', 4));
    expect(await store.putIfNewer({ ...base, stampCardId: 'b' }, card('b', 1))).toMatchObject({
      applied: true,
    });
    expect((await store.get({ ...base, stampCardId: 'a' }))?.ruleVersion).toBe(4);
  });

  it('loses no update when 30 versions are applied at once: the highest wins', async () => {
    const store = make();
    const key = keyOf();
    const versions = Array.from({ length: 30 }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
    const results = await Promise.all(versions.map((v) => store.putIfNewer(key, rule(key, v))));
    expect((await store.get(key))?.ruleVersion).toBe(30);
    expect(results[versions.indexOf(30)]?.applied).toBe(true);
  });
}
