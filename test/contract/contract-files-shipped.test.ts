import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { contractFiles } from '../../scripts/contract-files.js';

// The BUILT package (npm test builds before this runs), resolved by its public names the way
// Node resolves them for a user: through package.json `exports`, not vitest's aliases.
const require = createRequire(import.meta.url);
const resolve = (name: string) => {
  if (!existsSync(new URL('../../dist/contract/asyncapi.json', import.meta.url))) {
    throw new Error('dist/contract/ is missing: run `npm run build` first');
  }
  return require.resolve(name);
};
const read = (name: string): unknown => JSON.parse(readFileSync(resolve(name), 'utf8'));

describe('the contract files in the built package', () => {
  it('resolve as loyalty-partner-sdk/contract/asyncapi.json and .../contract/schemas/<name>.json', () => {
    expect(resolve('loyalty-partner-sdk/contract/asyncapi.json')).toMatch(/dist\/contract\/asyncapi\.json$/);
    expect(resolve('loyalty-partner-sdk/contract/schemas/InvoiceEarned.json')).toMatch(
      /dist\/contract\/schemas\/InvoiceEarned\.json$/,
    );
  });

  it('are what the generator makes from the zod catalogue today, file for file', () => {
    const expected = contractFiles();
    const schemaDir = resolve('loyalty-partner-sdk/contract/schemas/envelope.json').replace(
      /envelope\.json$/,
      '',
    );
    const shipped = readdirSync(schemaDir).map((name) => `schemas/${name}`);
    expect(['asyncapi.json', ...shipped].sort()).toEqual(Object.keys(expected).sort());
    for (const [path, document] of Object.entries(expected)) {
      expect(read(`loyalty-partner-sdk/contract/${path}`), path).toEqual(document);
    }
  });
});
