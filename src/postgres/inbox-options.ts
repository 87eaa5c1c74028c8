import { DEDUP_WINDOW_MARGIN_MS, DEDUP_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import {
  describeIssues,
  oneOf,
  optionIssues,
  throwIfInvalid,
  wholeNumber,
} from '../contract/options-check.js';
import { PostgresStoreError } from './errors.js';

/**
 * Options of {@link postgresInbox}.
 */
export interface PostgresInboxOptions {
  /**
   * The schema `migrate` created the tables in.
   * @default 'loyalty'
   */
  schema?: string;
  /**
   * Run the handler inside the claim's transaction: its writes through `ctx.tx` and the "done"
   * mark commit together or not at all, and a process that dies mid-handler leaves no claim.
   * @default false
   */
  transactional?: boolean;
  /**
   * Without `transactional`: how long a claim holds before another delivery may take it over
   * (its process is presumed dead). Longer than your slowest handler.
   * @default 600_000 (10 minutes)
   */
  leaseMs?: number;
  /**
   * With `transactional`: how long a concurrent copy of an event waits for the first copy's
   * transaction before it is answered 503 `EVENT_IN_PROGRESS` (the service retries later).
   * @default 2_000
   */
  lockTimeoutMs?: number;
  /**
   * How long done rows are kept: the contract's 24-hour dedup window plus a margin. Older rows
   * are deleted by the store itself, a small batch at a time.
   * @default 90_000_000 (25 hours)
   */
  retentionMs?: number;
  /**
   * Delete one batch of expired rows every this many claims by this store (0: never; then
   * delete them yourself).
   * @default 100
   */
  cleanupEvery?: number;
  /**
   * Rows deleted per batch: small enough never to hold locks on much of the table.
   * @default 500
   */
  cleanupBatchSize?: number;
}

/**
 * The defaults of {@link postgresInbox}, declared once.
 *
 * @example
 * ```ts
 * import { POSTGRES_INBOX_DEFAULTS } from 'loyalty-partner-sdk/postgres';
 * POSTGRES_INBOX_DEFAULTS.retentionMs / 3_600_000; // 25
 * ```
 */
export const POSTGRES_INBOX_DEFAULTS = {
  schema: 'loyalty',
  transactional: false,
  leaseMs: 10 * 60_000,
  lockTimeoutMs: 2_000,
  retentionMs: DEDUP_WINDOW_MS + DEDUP_WINDOW_MARGIN_MS,
  cleanupEvery: 100,
  cleanupBatchSize: 500,
} as const satisfies Required<PostgresInboxOptions>;

export type ResolvedInboxOptions = {
  -readonly [K in keyof typeof POSTGRES_INBOX_DEFAULTS]: K extends 'schema'
    ? string
    : K extends 'transactional'
      ? boolean
      : number;
};

/** @throws {PostgresStoreError} `INVALID_OPTIONS` naming each option at fault */
export function resolveInboxOptions(options: PostgresInboxOptions): ResolvedInboxOptions {
  const resolved = mergeDefaults<PostgresInboxOptions>(
    POSTGRES_INBOX_DEFAULTS,
    options,
  ) as ResolvedInboxOptions;
  const issues = optionIssues([
    wholeNumber('leaseMs', resolved.leaseMs, 1, undefined, 'milliseconds'),
    wholeNumber('lockTimeoutMs', resolved.lockTimeoutMs, 1, undefined, 'milliseconds'),
    wholeNumber('retentionMs', resolved.retentionMs, 1, undefined, 'milliseconds'),
    wholeNumber('cleanupEvery', resolved.cleanupEvery, 0),
    wholeNumber('cleanupBatchSize', resolved.cleanupBatchSize, 1),
    oneOf('transactional', resolved.transactional, [true, false]),
  ]);
  throwIfInvalid(
    issues,
    (all) => new PostgresStoreError('INVALID_OPTIONS', `postgresInbox: ${describeIssues(all)}`),
  );
  return resolved;
}
