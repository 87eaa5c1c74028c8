import { isDeepStrictEqual } from 'node:util';
import type { Style } from '../io.js';

export interface StepLog {
  /** One line of the report under the step's title. */
  note(line: string): void;
  /** Records a deviation unless `actual` deep-equals `expected`; returns whether it did. */
  expect(what: string, actual: unknown, expected: unknown): boolean;
}

/** One numbered step of a scripted run: a title, and the work that proves it. */
export interface Step<W> {
  readonly title: string;
  run(world: W, log: StepLog): Promise<void>;
}

/** How a run went: the number of steps that behaved as expected, and the titles of the others. */
export interface StepsOutcome {
  passed: number;
  failed: string[];
}

const show = (value: unknown): string => {
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  return JSON.stringify(value) ?? String(value);
};

const INDENT = '      ';

/** Runs every step in order, printing each as it ends; a deviation (or a throw) does not stop later ones. */
export async function runSteps<W>(
  steps: readonly Step<W>[],
  world: W,
  write: (text: string) => void,
  style: Style,
): Promise<StepsOutcome> {
  const outcome: StepsOutcome = { passed: 0, failed: [] };
  const width = String(steps.length).length;
  for (const [index, step] of steps.entries()) {
    const notes: string[] = [];
    const deviations: string[] = [];
    const log: StepLog = {
      note: (line) => void notes.push(line),
      expect(what, actual, expected) {
        if (isDeepStrictEqual(actual, expected)) return true;
        deviations.push(`${what}: expected ${show(expected)}, got ${show(actual)}`);
        return false;
      },
    };
    try {
      await step.run(world, log);
    } catch (err) {
      deviations.push(`stopped by an unexpected error: ${show(err)}`);
    }
    const ok = deviations.length === 0;
    if (ok) outcome.passed += 1;
    else outcome.failed.push(step.title);
    const number = `${String(index + 1).padStart(width)}.`;
    const title = ok ? style.bold(step.title) : style.red(style.bold(step.title));
    write(`${number} ${ok ? style.pass : style.fail} ${title}\n`);
    for (const line of notes) write(`${INDENT}${line}\n`);
    for (const line of deviations) write(`${INDENT}${style.fail} ${style.red(line)}\n`);
  }
  return outcome;
}
