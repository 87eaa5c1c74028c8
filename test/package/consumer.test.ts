import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsumerProject, createConsumerProject, packageRoot as root } from './consumer-project.js';

let consumer: ConsumerProject;

const ENTRIES: Record<string, string[]> = {
  'loyalty-partner-sdk': [
    'LoyaltyClient',
    'LoyaltyApiError',
    'LoyaltyNetworkError',
    'LoyaltyValidationError',
    'createEnvelope',
    'EVENT_TYPES',
    'ERROR_CODES',
    'schemas',
    'signPayload',
    'verifySignature',
    'verifySignatureAsync',
  ],
  'loyalty-partner-sdk/signature': [
    'signPayload',
    'verifySignature',
    'verifySignatureAsync',
    'parseSignatureHeader',
    'SignatureVerificationError',
  ],
  'loyalty-partner-sdk/webhooks': ['createReceiver', 'createRuleCache'],
  'loyalty-partner-sdk/node': ['createNodeListener'],
  'loyalty-partner-sdk/express': ['expressWebhook'],
  'loyalty-partner-sdk/next': ['nextRouteHandler', 'pagesApiHandler'],
  'loyalty-partner-sdk/fetch': ['fetchHandler'],
  'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore', 'memoryStore'],
  'loyalty-partner-sdk/testing': ['createEmulator', 'signTestHeader', 'samplePayload'],
};

const run = (file: string, source: string): string => consumer.run(file, source);

beforeAll(() => {
  consumer = createConsumerProject();
});

afterAll(() => consumer?.remove());

describe('the built package, as a consumer project sees it', () => {
  it.each(Object.entries(ENTRIES))('can `import` %s and finds its exports', (entry, names) => {
    const out = run(
      'probe.mjs',
      `import * as m from '${entry}';\nconsole.log(JSON.stringify(Object.keys(m)));`,
    );
    expect(JSON.parse(out)).toEqual(expect.arrayContaining(names));
  });

  it.each(Object.entries(ENTRIES))('can `require` %s and finds its exports', (entry, names) => {
    const out = run(
      'probe.cjs',
      `const m = require('${entry}');\nconsole.log(JSON.stringify(Object.keys(m)));`,
    );
    expect(JSON.parse(out)).toEqual(expect.arrayContaining(names));
  });

  it('shares one error class between entries within each module format', () => {
    const probe = (load: string) => `${load}
const root = load('loyalty-partner-sdk'); const outbox = load('loyalty-partner-sdk/outbox');
const sig = load('loyalty-partner-sdk/signature');
console.log(JSON.stringify([root.LoyaltyValidationError === outbox.LoyaltyValidationError || outbox.LoyaltyValidationError === undefined,
  root.SignatureVerificationError === sig.SignatureVerificationError]));`;
    expect(run('same.cjs', probe('const load = require;'))).toBe('[true,true]');
    const esm = `import * as root from 'loyalty-partner-sdk'; import * as outbox from 'loyalty-partner-sdk/outbox';
import * as sig from 'loyalty-partner-sdk/signature';
console.log(JSON.stringify([root.LoyaltyValidationError === outbox.LoyaltyValidationError || outbox.LoyaltyValidationError === undefined,
  root.SignatureVerificationError === sig.SignatureVerificationError]));`;
    expect(run('same.mjs', esm)).toBe('[true,true]');
  });

  it('signs the same bytes to the same header from ESM and CommonJS', () => {
    const body = `const body = '{"a":1}'; console.log(m.signPayload(body, 'whsec_x', { timestamp: 1763630000 }));`;
    const esm = run('sign.mjs', `import * as m from 'loyalty-partner-sdk/signature';\n${body}`);
    const cjs = run('sign.cjs', `const m = require('loyalty-partner-sdk');\n${body}`);
    expect(esm).toMatch(/^t=1763630000,v1=[0-9a-f]{64}$/);
    expect(cjs).toBe(esm);
  });

  it('installs the loyalty-partner bin as an executable ESM file', () => {
    const out = execFileSync(process.execPath, [join(root, 'dist/cli.js'), '--help'], { encoding: 'utf8' });
    expect(out).toMatch(/loyalty-partner/);
  });
});
