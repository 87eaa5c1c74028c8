import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import type { MisconfigurationReporting } from './misconfiguration.js';

/**
 * Options every adapter takes.
 *
 * @example
 * ```ts
 * import type { AdapterOptions } from 'loyalty-partner-sdk/fetch';
 * const options: AdapterOptions = { maxBodyBytes: 256 * 1024 };
 * ```
 */
export interface AdapterOptions extends MisconfigurationReporting {
  /**
   * Largest body read, in bytes. A larger delivery is answered 413 `PAYLOAD_TOO_LARGE` as soon as
   * the limit is crossed (or at once when `Content-Length` says so), without buffering the rest.
   * The contract shows no maximum; one event envelope is a few kilobytes.
   * @default 1_048_576 (1 MiB)
   */
  maxBodyBytes?: number;
}

/**
 * The defaults of every adapter, declared once.
 *
 * @example
 * ```ts
 * import { ADAPTER_DEFAULTS } from 'loyalty-partner-sdk/node';
 * ADAPTER_DEFAULTS.maxBodyBytes; // 1048576
 * ```
 */
export const ADAPTER_DEFAULTS = { maxBodyBytes: 1024 * 1024 } as const satisfies Required<
  Pick<AdapterOptions, 'maxBodyBytes'>
>;

/** An adapter's options once checked: the size limit decided, the reporting as given. */
export type NormalizedAdapterOptions = { maxBodyBytes: number } & MisconfigurationReporting;

/** Checks an adapter's arguments once, when the handler is created. */
export function normalizeAdapterOptions(
  adapter: string,
  receiver: Receiver,
  options: AdapterOptions | undefined,
): NormalizedAdapterOptions {
  const { onError, logger, ...limits } = options ?? {};
  const merged = {
    ...mergeDefaults<Pick<AdapterOptions, 'maxBodyBytes'>>(ADAPTER_DEFAULTS, limits),
    onError,
    logger,
  };
  const issues: ValidationIssue[] = [];
  if (typeof (receiver as Partial<Receiver> | null)?.handle !== 'function') {
    issues.push({ path: 'receiver', message: 'must be a receiver from createReceiver()' });
  }
  if (!(Number.isSafeInteger(merged.maxBodyBytes) && merged.maxBodyBytes > 0)) {
    issues.push({ path: 'maxBodyBytes', message: 'must be a whole number of bytes > 0' });
  }
  if (merged.onError !== undefined && typeof merged.onError !== 'function') {
    issues.push({ path: 'onError', message: 'must be a function' });
  }
  if (
    logger !== undefined &&
    logger !== false &&
    typeof (logger as { warn?: unknown } | null)?.warn !== 'function'
  ) {
    issues.push({ path: 'logger', message: 'must have a warn(message) method, or be false' });
  }
  if (issues.length)
    throw new LoyaltyValidationError('INVALID_OPTIONS', `Invalid ${adapter} arguments`, issues);
  return merged;
}
