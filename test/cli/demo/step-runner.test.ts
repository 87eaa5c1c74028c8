import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runSteps, type Step } from '../../../src/cli/demo/step-runner.js';
import { createStyle } from '../../../src/cli/io.js';

const plain = createStyle({
  stdout: Object.assign(new PassThrough(), { isTTY: false }),
  stderr: new PassThrough(),
  stdin: new PassThrough(),
  env: {},
});

async function run(steps: Step<{ balance: number }>[]) {
  const chunks: string[] = [];
  const outcome = await runSteps(steps, { balance: 8 }, (chunk) => void chunks.push(chunk), plain);
  return { outcome, text: chunks.join('') };
}

describe('runSteps', () => {
  it('numbers each step, marks it PASS and prints its notes', async () => {
    const { outcome, text } = await run([
      {
        title: 'Earn',
        async run(world, log) {
          log.note(`balance ${world.balance}`);
          log.expect('balance', world.balance, 8);
        },
      },
    ]);
    expect(outcome).toEqual({ passed: 1, failed: [] });
    expect(text).toBe('1. PASS Earn\n      balance 8\n');
  });

  it('marks a step FAIL and says what was expected and what happened, then runs the next step', async () => {
    const { outcome, text } = await run([
      { title: 'Earn', run: async (world, log) => void log.expect('balance', world.balance, 12) },
      {
        title: 'Replay',
        run: async (_world, log) => void log.expect('outcomes', ['processed'], ['processed']),
      },
    ]);
    expect(outcome).toEqual({ passed: 1, failed: ['Earn'] });
    expect(text).toBe('1. FAIL Earn\n      FAIL balance: expected 12, got 8\n2. PASS Replay\n');
  });

  it('turns a step that throws into a deviation naming the error', async () => {
    const { outcome, text } = await run([
      {
        title: 'Sync',
        async run() {
          throw new TypeError('fetch failed');
        },
      },
    ]);
    expect(outcome.failed).toEqual(['Sync']);
    expect(text).toContain('FAIL stopped by an unexpected error: TypeError: fetch failed');
  });

  it('compares structures deeply, whatever the key order', async () => {
    const { outcome } = await run([
      {
        title: 'Balance',
        run: async (_w, log) =>
          void log.expect('balance', { stamps: { c: 1 }, points: 2 }, { points: 2, stamps: { c: 1 } }),
      },
    ]);
    expect(outcome.passed).toBe(1);
  });
});
