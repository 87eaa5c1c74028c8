import type { ValidationIssue } from './errors.js';
import { isLogger, writeLog } from './logger.js';

/**
 * One check of an options object: the option's path, whether its value passes, and what is
 * expected when it does not. The expectation is written by the SDK, never copied from the value,
 * since an option may hold a key or a secret. `false` stands for a check that does not apply.
 */
export type OptionCheck = readonly [path: string, ok: boolean, expected: string] | false;

/** The issue of every check that failed, in order, so one error names every fault at once. */
export function optionIssues(checks: readonly OptionCheck[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const check of checks) if (check && !check[1]) issues.push({ path: check[0], message: check[2] });
  return issues;
}

/**
 * A whole number from `min` (up to `max`, when given), said the same way by every options object:
 * "must be a whole number of milliseconds > 0".
 */
export function wholeNumber(
  path: string,
  value: unknown,
  min: number,
  max?: number,
  unit?: string,
): OptionCheck {
  const range = max !== undefined ? ` from ${min} to ${max}` : min === 1 ? ' > 0' : ` >= ${min}`;
  return [path, isWhole(value, min, max), `must be a whole number${unit ? ` of ${unit}` : ''}${range}`];
}

/** A safe integer from `min` to `max`. */
export const isWhole = (value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): boolean =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

/** A function, or nothing. */
export const functionOrAbsent = (
  path: string,
  value: unknown,
  expected = 'must be a function',
): OptionCheck => [path, value === undefined || typeof value === 'function', expected];

/** One of a few literal values: "must be 'system' or 'manual'". */
export function oneOf(path: string, value: unknown, choices: readonly (string | boolean)[]): OptionCheck {
  const said = choices.map((choice) => (typeof choice === 'string' ? `'${choice}'` : String(choice)));
  const list = said.length > 1 ? `${said.slice(0, -1).join(', ')} or ${said.at(-1)}` : said[0];
  return [path, choices.includes(value as string | boolean), `must be ${list}`];
}

/** Every key of `given` that `known` lacks: a misspelt option would otherwise be ignored silently. */
export function unknownKeys(
  prefix: string,
  given: unknown,
  known: readonly string[],
  owner: string,
): OptionCheck[] {
  if (typeof given !== 'object' || given === null) return [];
  return Object.keys(given)
    .filter((key) => !known.includes(key))
    .map((key) => [
      prefix ? `${prefix}.${key}` : key,
      false,
      `is not an option of ${owner} (check its spelling)`,
    ]);
}

/** `leaseMs must be ...; ttlMs must be ...`: the issues in one line, for error classes without `issues`. */
export const describeIssues = (issues: readonly ValidationIssue[]): string =>
  issues.map((issue) => `${issue.path} ${issue.message}`).join('; ');

/**
 * Throws the area's own error once, listing every issue, after one `error` log line (naming the
 * options at fault, never their values) when a logger is given. Returns when there is no issue.
 */
export function throwIfInvalid(
  issues: readonly ValidationIssue[],
  toError: (issues: readonly ValidationIssue[]) => Error,
  log?: { logger: unknown; event: string },
): void {
  if (issues.length === 0) return;
  const error = toError(issues);
  if (log && isLogger(log.logger)) {
    writeLog(log.logger, 'error', log.event, error.message, {
      options: issues.map((issue) => issue.path).join(', '),
    });
  }
  throw error;
}
