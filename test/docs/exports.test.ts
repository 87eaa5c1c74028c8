import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { FIRST_WAVE_BUDGET, firstWaveValues, listExports } from '../../scripts/list-exports.mjs';

describe('the public surface', () => {
  it('keeps the first-wave entries (root, signature, webhooks, node, express, next, fetch) within their budget of run-time exports', () => {
    expect(firstWaveValues(listExports())).toBeLessThanOrEqual(FIRST_WAVE_BUDGET);
  });

  it('gives every public name a summary sentence', () => {
    const missing: string[] = [];
    for (const [entry, { summaries }] of Object.entries(listExports() as Record<string, any>)) {
      for (const [name, summary] of Object.entries(summaries))
        if (!summary) missing.push(`${entry}: ${name}`);
    }
    expect(missing).toEqual([]);
  });
});
