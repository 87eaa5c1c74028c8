import { DEDUP_WINDOW_MARGIN_MS, DEDUP_WINDOW_MS } from '../contract/limits.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import {
  describeIssues,
  functionOrAbsent,
  oneOf,
  optionIssues,
  throwIfInvalid,
  wholeNumber,
} from '../contract/options-check.js';
import type { Database } from './database.js';
import { PostgresStoreError } from './errors.js';
import { checkListenClient, type PostgresListenClient } from './outbox-listen.js';

/** What every Postgres store is told of its tables: where they are, how long rows stay. */
export interface StoreTableOptions {
  /**
   * The schema `migrate` created the tables in.
   * @default 'loyalty'
   */
  schema?: string;
  /**
   * How long settled rows are kept: the contract's 24-hour dedup window plus a margin, so an
   * `eventId` seen again within it is recognised. The store deletes older rows, a batch at a time.
   * @default 90_000_000 (25 hours)
   */
  retentionMs?: number;
  /**
   * Delete one batch of expired rows every this many claims by this store (0: never; do it yourself).
   * @default 100
   */
  cleanupEvery?: number;
  /**
   * Rows deleted per batch: small enough never to hold locks on much of the table.
   * @default 500
   */
  cleanupBatchSize?: number;
}

/** Options of {@link postgresInbox}. */
export interface PostgresInboxOptions extends StoreTableOptions {
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
}

/** Options of {@link postgresStore}. */
export interface PostgresStoreOptions extends StoreTableOptions {
  /**
   * The most of the oldest pending events a claim weighs for readiness (it starts smaller and
   * doubles only while nothing is ready); an event further back waits, so keep it well above the
   * events in flight at once (processes x `concurrency` x `maxInFlight`).
   * @default 1000
   */
  claimWindow?: number;
  /**
   * A dedicated, connected `pg.Client` (not a pool's) or a postgres.js `sql` on which the store
   * `LISTEN`s, so an event committed elsewhere is sent at once, not at the next poll; it stays
   * yours. Behind a transaction pooler `LISTEN` cannot work (docs/outbox.md): `start()` checks
   * and says so (`onError`, warning `LOYALTY_POSTGRES_LISTEN`), and the outbox polls.
   */
  listen?: PostgresListenClient | undefined;
  /**
   * Told what the store found wrong with its connections at `start()`, the outbox going on
   * (`LISTEN_NOT_WORKING`, `PREPARES_BEHIND_POOLER`); also a Node warning, once per process.
   */
  onError?: ((err: PostgresStoreError) => void) | undefined;
}

const TABLE_DEFAULTS = {
  schema: 'loyalty',
  retentionMs: DEDUP_WINDOW_MS + DEDUP_WINDOW_MARGIN_MS,
  cleanupEvery: 100,
  cleanupBatchSize: 500,
} as const satisfies Required<StoreTableOptions>;

const tableChecks = (resolved: Required<StoreTableOptions>) => [
  wholeNumber('retentionMs', resolved.retentionMs, 1, undefined, 'milliseconds'),
  wholeNumber('cleanupEvery', resolved.cleanupEvery, 0),
  wholeNumber('cleanupBatchSize', resolved.cleanupBatchSize, 1),
];

const invalid = (store: string) => (all: Parameters<typeof describeIssues>[0]) =>
  new PostgresStoreError('INVALID_OPTIONS', `${store}: ${describeIssues(all)}`);

/** @throws {PostgresStoreError} `INVALID_OPTIONS` naming each option at fault */
export function resolveInboxOptions(options: PostgresInboxOptions): Required<PostgresInboxOptions> {
  const resolved = mergeDefaults<PostgresInboxOptions>(
    { ...TABLE_DEFAULTS, transactional: false, leaseMs: 10 * 60_000, lockTimeoutMs: 2_000 },
    options,
  );
  const issues = optionIssues([
    wholeNumber('leaseMs', resolved.leaseMs, 1, undefined, 'milliseconds'),
    wholeNumber('lockTimeoutMs', resolved.lockTimeoutMs, 1, undefined, 'milliseconds'),
    ...tableChecks(resolved),
    oneOf('transactional', resolved.transactional, [true, false]),
  ]);
  throwIfInvalid(issues, invalid('postgresInbox'));
  return resolved;
}

/** @throws {PostgresStoreError} `INVALID_OPTIONS` naming each option at fault */
export function resolveStoreOptions(options: PostgresStoreOptions) {
  const { listen, onError, ...numbers } = options;
  const resolved = {
    ...mergeDefaults<Omit<PostgresStoreOptions, 'listen' | 'onError'>>(
      { ...TABLE_DEFAULTS, claimWindow: 1_000 },
      numbers,
    ),
    listen: checkListenClient(listen),
    onError,
  };
  const issues = optionIssues([
    functionOrAbsent('onError', onError),
    ...tableChecks(resolved),
    wholeNumber('claimWindow', resolved.claimWindow, 1),
  ]);
  throwIfInvalid(issues, invalid('postgresStore'));
  return resolved;
}

/** Every `cleanupEvery` claims, one batch of expired rows is deleted in the background (inbox and outbox). */
export function cleaner(
  database: Database,
  statement: string,
  settings: Required<StoreTableOptions>,
): () => void {
  let claims = 0;
  let running = false;
  return () => {
    if (settings.cleanupEvery === 0 || ++claims % settings.cleanupEvery !== 0 || running) return;
    running = true;
    database
      .query(statement, [settings.retentionMs, settings.cleanupBatchSize])
      // Best effort: a failed batch is retried after the next `cleanupEvery` claims.
      .catch(() => undefined)
      .finally(() => {
        running = false;
      });
  };
}
