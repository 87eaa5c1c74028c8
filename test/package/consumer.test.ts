import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// A consumer project outside the repository whose node_modules holds the package, so Node resolves
// it through the `exports` map exactly as an installed copy. Needs `npm run build` (npm test runs it).
const root = resolve(import.meta.dirname, '../..');
let consumer: string;

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
  'loyalty-partner-sdk/express': ['expressWebhook', 'expressWebhookErrorHandler', 'AdapterError'],
  'loyalty-partner-sdk/next': ['nextRouteHandler', 'pagesApiHandler'],
  'loyalty-partner-sdk/fetch': ['fetchHandler'],
  'loyalty-partner-sdk/fastify': ['fastifyWebhook', 'AdapterError'],
  'loyalty-partner-sdk/koa': ['koaWebhook'],
  'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore', 'memoryStore'],
  'loyalty-partner-sdk/testing': ['createEmulator', 'signTestHeader', 'samplePayload'],
};

function run(file: string, source: string): string {
  writeFileSync(join(consumer, file), source);
  return execFileSync(process.execPath, [file], { cwd: consumer, encoding: 'utf8' }).trim();
}

beforeAll(() => {
  if (!existsSync(join(root, 'dist/index.node.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  consumer = mkdtempSync(join(tmpdir(), 'loyalty-consumer-'));
  mkdirSync(join(consumer, 'node_modules'));
  symlinkSync(root, join(consumer, 'node_modules', 'loyalty-partner-sdk'), 'dir');
  writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
});

afterAll(() => {
  if (consumer) rmSync(consumer, { recursive: true, force: true });
});

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
