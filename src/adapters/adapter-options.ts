import { LoyaltyValidationError } from '../contract/errors.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { functionOrAbsent, optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import { MAX_TIMER_MS } from '../internal/timers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import type { MisconfigurationReporting } from './misconfiguration.js';

/**
 * Options every adapter takes.
 *
 * @example
 * ```ts
 * import type { AdapterOptions } from 'loyalty-partner-sdk/fetch';
 * const options: AdapterOptions = { maxBodyBytes: 256 * 1024, bodyTimeoutMs: 5_000 };
 * ```
 */
export interface AdapterOptions extends MisconfigurationReporting {
  /**
   * Largest body read, in bytes: a larger delivery is answered 413 `PAYLOAD_TOO_LARGE` as soon as
   * the limit is crossed, without buffering the rest (one envelope is a few kilobytes).
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
  /**
   * Longest wait for the whole body, in milliseconds: a sender trickling bytes is answered 408
   * `REQUEST_TIMEOUT` and the connection closed, so it cannot hold the connection open.
   * @default 10_000
   */
  bodyTimeoutMs?: number;
}

type Limits = Pick<AdapterOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>;

// The defaults of every adapter, declared once (each is also in its option's @default tag).
export const ADAPTER_DEFAULTS = {
  maxBodyBytes: 1024 * 1024,
  bodyTimeoutMs: 10_000,
} as const satisfies Required<Limits>;

/** Whose setup a misconfiguration report names, and the fix in that framework's own terms. */
export interface FrameworkHint {
  framework: string;
  fix: string;
}

/** An adapter's options once checked: the limits decided, the reporting as given, its framework. */
export type ExchangeOptions = Required<Limits> & MisconfigurationReporting & FrameworkHint;

/** Checks an adapter's arguments once, when the handler is created; `hint` names its framework. */
export function normalizeAdapterOptions(
  adapter: string,
  receiver: Receiver,
  options: AdapterOptions | undefined,
  hint: FrameworkHint,
): ExchangeOptions {
  const { onError, logger, ...limits } = options ?? {};
  const merged = { ...mergeDefaults<Limits>(ADAPTER_DEFAULTS, limits), onError, logger, ...hint };
  const warns = typeof (logger as { warn?: unknown } | null)?.warn === 'function';
  const issues = optionIssues([
    [
      'receiver',
      typeof (receiver as Partial<Receiver> | null)?.handle === 'function',
      'must be a receiver from createReceiver()',
    ],
    wholeNumber('maxBodyBytes', merged.maxBodyBytes, 1, undefined, 'bytes'),
    wholeNumber('bodyTimeoutMs', merged.bodyTimeoutMs, 1, MAX_TIMER_MS, 'milliseconds'),
    functionOrAbsent('onError', onError),
    [
      'logger',
      logger === undefined || logger === false || warns,
      'must have a warn(message) method, or be false',
    ],
  ]);
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', `Invalid ${adapter} arguments`, all),
  );
  return merged;
}
