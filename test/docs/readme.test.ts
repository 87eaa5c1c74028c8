import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderEventTable } from './render-tables.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('README.md', () => {
  it('shows the event table exactly as the catalogue renders it', () => {
    expect(readme).toContain(renderEventTable());
  });

  it('shows the two fresh-machine commands', () => {
    expect(readme).toContain('npm ci && npm run demo');
    expect(readme).toContain('npm ci && npm test');
  });

  it('keeps no unfilled section markers', () => {
    expect(readme).not.toMatch(/<!-- section:/);
  });
});
