import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject } from './consumer-project.js';

// Where Node can `require` an ES module (20.19+, 22.12+), the `module-sync` export condition makes
// `import` and `require` load the same ESM build, so an error thrown by code loaded one way passes
// `instanceof` against the class loaded the other way. Before that (20.18), `require` must load the
// CommonJS build: two copies of each class, the dual-package hazard, documented in the README.
let consumer: ConsumerProject;
const requireLoadsEsm = (process.features as { require_module?: boolean }).require_module === true;

beforeAll(() => {
  consumer = createConsumerProject();
});
afterAll(() => consumer?.remove());

const probe = `import { createRequire } from 'node:module';
import * as esm from 'loyalty-partner-sdk';
import * as esmOutbox from 'loyalty-partner-sdk/outbox';
const require = createRequire(import.meta.url);
const cjs = require('loyalty-partner-sdk');
let caught;
try { esm.createEnvelope('NoSuchEvent', {}); } catch (err) { caught = err; }
console.log(JSON.stringify({
  sameClass: esm.LoyaltyValidationError === cjs.LoyaltyValidationError,
  instanceOfOther: caught instanceof cjs.LoyaltyValidationError,
  sameClient: esm.LoyaltyClient === cjs.LoyaltyClient,
  outboxShares: typeof esmOutbox.createOutbox === 'function',
}));`;

describe('import and require of the built package', () => {
  it(`share one error class exactly where Node can require ESM (this Node: ${process.version})`, () => {
    const seen = JSON.parse(consumer.run('dual.mjs', probe));
    // Before require(esm) (20.18) the README documents two copies of each class: the hazard.
    expect(seen).toEqual({
      sameClass: requireLoadsEsm,
      instanceOfOther: requireLoadsEsm,
      sameClient: requireLoadsEsm,
      outboxShares: true,
    });
    const cjs = consumer.run('plain.cjs', "console.log(typeof require('loyalty-partner-sdk').LoyaltyClient)");
    expect(cjs).toBe('function');
  });
});
