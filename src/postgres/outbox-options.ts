import { DEDUP_WINDOW_MARGIN_MS, DEDUP_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { describeIssues, optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import { PostgresStoreError } from './errors.js';
import { checkListenClient, type PostgresListenClient } from './outbox-listen.js';

/**
 * Options of {@link postgresStore}.
 */
export interface PostgresStoreOptions {
  /**
   * The schema `migrate` created the tables in.
   * @default 'loyalty'
   */
  schema?: string;
  /**
   * How long delivered rows are kept: the contract's 24-hour dedup window plus a margin, so an
   * `eventId` enqueued again within the window is recognised instead of sent again. Older rows
   * are deleted by the store itself, a small batch at a time.
   * @default 90_000_000 (25 hours)
   */
  retentionMs?: number;
  /**
   * The most of the oldest pending events a claim considers. Causal readiness is computed for
   * all of them at once; a claim starts with twice its outbox's capacity (`concurrency` x
   * `maxInFlight`) and doubles, up to this, only while nothing it considered was ready. An event
   * further back waits until older ones are done, so keep this well above the events in flight
   * at once (processes x `concurrency` x `maxInFlight`).
   * @default 1000
   */
  claimWindow?: number;
  /**
   * Delete one batch of old delivered rows every this many claims by this store (0: never; then
   * delete them yourself).
   * @default 100
   */
  cleanupEvery?: number;
  /**
   * Rows deleted per batch: small enough never to hold locks on much of the table.
   * @default 500
   */
  cleanupBatchSize?: number;
  /**
   * A dedicated, connected `pg.Client` (not a pool's) or a postgres.js `sql` on which the store
   * `LISTEN`s, so an event committed by another process is sent at once instead of at the next
   * poll (`pollIntervalMs`). Only enqueues that find a listening outbox idle notify: under load
   * no committing transaction does (see the README, "Wake-ups"). The client stays yours: the
   * store never closes it. Behind a transaction pooler `LISTEN` cannot work: give a direct or
   * session-mode connection (docs/outbox.md, "Wake-ups behind a pooler"). At `start()` the store
   * checks that its own test notification arrives, and says so when it does not (`onError`, a
   * Node warning `LOYALTY_POSTGRES_LISTEN`): the outbox then finds events by polling.
   */
  listen?: PostgresListenClient | undefined;
  /**
   * Told what the store found wrong with its connections at `start()`, the outbox going on
   * (`LISTEN_NOT_WORKING`, `PREPARES_BEHIND_POOLER`). Each is also a Node warning, once per process.
   */
  onError?: ((err: PostgresStoreError) => void) | undefined;
}

/**
 * The defaults of {@link postgresStore}, declared once.
 *
 * @example
 * ```ts
 * import { POSTGRES_STORE_DEFAULTS } from 'loyalty-partner-sdk/postgres';
 * POSTGRES_STORE_DEFAULTS.cleanupBatchSize; // 500
 * ```
 */
export const POSTGRES_STORE_DEFAULTS = {
  schema: 'loyalty',
  retentionMs: DEDUP_WINDOW_MS + DEDUP_WINDOW_MARGIN_MS,
  claimWindow: 1_000,
  cleanupEvery: 100,
  cleanupBatchSize: 500,
} as const satisfies Required<Omit<PostgresStoreOptions, 'listen' | 'onError'>>;

export type ResolvedStoreOptions = {
  -readonly [K in keyof typeof POSTGRES_STORE_DEFAULTS]: K extends 'schema' ? string : number;
} & { listen: PostgresListenClient | undefined; onError: ((err: PostgresStoreError) => void) | undefined };

/** @throws {PostgresStoreError} `INVALID_OPTIONS` naming each option at fault */
export function resolveStoreOptions(options: PostgresStoreOptions): ResolvedStoreOptions {
  const { listen, onError, ...numbers } = options;
  const resolved = {
    ...mergeDefaults<Omit<PostgresStoreOptions, 'listen' | 'onError'>>(POSTGRES_STORE_DEFAULTS, numbers),
    listen: checkListenClient(listen),
    onError,
  } as ResolvedStoreOptions;
  if (onError !== undefined && typeof onError !== 'function') {
    throw new PostgresStoreError('INVALID_OPTIONS', 'postgresStore: onError must be a function');
  }
  const issues = optionIssues([
    wholeNumber('retentionMs', resolved.retentionMs, 1, undefined, 'milliseconds'),
    wholeNumber('claimWindow', resolved.claimWindow, 1),
    wholeNumber('cleanupEvery', resolved.cleanupEvery, 0),
    wholeNumber('cleanupBatchSize', resolved.cleanupBatchSize, 1),
  ]);
  throwIfInvalid(
    issues,
    (all) => new PostgresStoreError('INVALID_OPTIONS', `postgresStore: ${describeIssues(all)}`),
  );
  return resolved;
}
