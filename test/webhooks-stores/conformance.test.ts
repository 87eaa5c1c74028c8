import { memoryInbox, memoryRuleStore } from 'loyalty-partner-sdk/webhooks';
import { describe } from 'vitest';
import { deferredConformance } from './deferred-conformance.js';
import { inboxConformance } from './inbox-conformance.js';
import { ruleStoreConformance } from './rule-store-conformance.js';

// The reference: the in-memory stores pass the suites the Postgres and Redis stores pass
// (test/postgres/*.test.ts, test/redis/*.test.ts).
describe('memoryInbox conformance', () => inboxConformance(({ leaseMs }) => memoryInbox({ leaseMs })));
describe('memoryInbox deferred conformance', () =>
  deferredConformance(({ leaseMs }) => memoryInbox({ leaseMs })));
describe('memoryRuleStore conformance', () => ruleStoreConformance(() => memoryRuleStore()));
