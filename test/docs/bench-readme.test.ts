import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without declarations
import { renderBenchReadme } from '../../scripts/bench-readme.mjs';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('bench/README.md', () => {
  const latest = JSON.parse(read('bench/results/latest.json'));

  it('is exactly what scripts/bench-readme.mjs writes from bench/results/latest.json', () => {
    expect(read('bench/README.md')).toBe(renderBenchReadme(latest));
  });

  it('names the machine the figures were taken on, or says it was not recorded', () => {
    const { cpu, cores, node } = latest.machine;
    expect(renderBenchReadme(latest)).toContain(`${cpu}, ${cores} cores, Node.js ${node}`);
    const { machine: _, ...withoutMachine } = latest;
    expect(renderBenchReadme(withoutMachine)).toContain('machine not recorded');
  });

  it('shows every goal of the run with its verdict', () => {
    const text = renderBenchReadme(latest);
    const goals = Object.values(latest.results as Record<string, { goals?: { goal: string }[] }>).flatMap(
      (result) => result.goals ?? [],
    );
    expect(goals.length).toBeGreaterThan(5);
    for (const { goal } of goals)
      expect(text).toMatch(new RegExp(`\\| (PASS|FAIL) \\| ${goal.replace(/[().*+?[\]\\/]/g, '\\$&')} \\|`));
  });
});
