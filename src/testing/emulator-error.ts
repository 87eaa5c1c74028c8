import { describeIssues, type OptionCheck, optionIssues, throwIfInvalid } from '../contract/options-check.js';
import { codeError } from '../internal/code-error.js';

/** Why the emulator refused a call made by the test itself (not by the partner over HTTP). */
export type EmulatorErrorCode =
  | 'INVALID_OPTIONS'
  | 'UNKNOWN_TENANT'
  | 'TENANT_EXISTS'
  | 'UNKNOWN_REDEMPTION'
  | 'INVALID_OPERATION';

/**
 * Thrown by the emulator's own API when a test asks for something impossible: an unknown tenant,
 * a second merchant under the same id, `advance()` without the manual clock, options out of range.
 * Partner requests never throw: they get the contract's error envelope over HTTP.
 *
 * @example
 * ```ts
 * import { createEmulator, EmulatorError } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * try {
 *   emulator.pause('no-such-tenant');
 * } catch (err) {
 *   if (err instanceof EmulatorError) console.log(err.code); // 'UNKNOWN_TENANT'
 * }
 * ```
 */
export class EmulatorError extends codeError<'EmulatorError', EmulatorErrorCode>('EmulatorError') {}

/** Throws `INVALID_OPTIONS` naming every failed check, after `prefix` (the call refused). */
export function refuseOptions(prefix: string, checks: readonly OptionCheck[]): void {
  throwIfInvalid(
    optionIssues(checks),
    (all) => new EmulatorError('INVALID_OPTIONS', `${prefix}${describeIssues(all)}`),
  );
}
