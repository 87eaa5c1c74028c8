import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import * as exportsScript from '../../scripts/list-exports.mjs';

const { FIRST_WAVE_BUDGET, firstWaveValues, listExports, renderPublicNames } = exportsScript;

const guide = readFileSync(new URL('../../docs/entry-points.md', import.meta.url), 'utf8');

describe('the public surface', () => {
  it('is listed in docs/entry-points.md, name by name: a new export fails until it is', () => {
    expect(guide).toContain(renderPublicNames());
  }, 120_000); // a TypeScript program over every source file: slow on a busy machine

  it('keeps the first-wave entries (root, signature, webhooks, node, express, next, fetch) within their budget of run-time exports', () => {
    expect(firstWaveValues(listExports())).toBeLessThanOrEqual(FIRST_WAVE_BUDGET);
  }, 120_000);

  it('gives every public name a summary sentence', () => {
    const missing: string[] = [];
    for (const [entry, { summaries }] of Object.entries(listExports() as Record<string, any>)) {
      for (const [name, summary] of Object.entries(summaries))
        if (!summary) missing.push(`${entry}: ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
