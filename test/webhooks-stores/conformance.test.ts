import { memoryRuleStore } from 'loyalty-partner-sdk/webhooks';
import { afterAll, beforeAll, describe } from 'vitest';
import { inboxConformance, type MakeInbox } from './inbox-conformance.js';
import { ruleStoreConformance } from './rule-store-conformance.js';
import { STORES } from './stores.js';

// One suite, every store: memory is the reference the Postgres and Redis stores must match.
for (const store of STORES) {
  describe(`${store.name} conformance`, () => {
    let built: Awaited<ReturnType<StoreUnderTest['setUp']>> | undefined;
    beforeAll(async () => {
      built = await store.setUp();
    });
    afterAll(() => built?.close());
    inboxConformance((options) => (built!.make as MakeInbox)(options));
  });
}
describe('memoryRuleStore conformance', () => ruleStoreConformance(() => memoryRuleStore()));

type StoreUnderTest = (typeof STORES)[number];
