import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('shows the two fresh-machine commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });

  it('stays a hub a newcomer reads in one sitting: at most 400 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(400);
  });

  it('marks its three quick starts (four blocks) for test/package/quick-starts.test.ts', () => {
    const marked = [...readme.matchAll(/^<!-- quick-start: ([a-z]+) -->\n```ts\n/gm)].map((m) => m[1]);
    expect(marked).toEqual(['pos', 'express', 'next', 'emulator']);
  });

  it('keeps no unfilled section markers', () => {
    expect(readme).not.toMatch(/<!-- section:/);
  });
});
