import type { DeferredInboxStore, InboxClaim, InboxKey, InboxStore } from '../webhooks/inbox.js';
import {
  type Database,
  type PostgresDb,
  prepareStatements,
  type SqlRunner,
  toStoreDatabase,
} from './database.js';
import { toStoreError } from './errors.js';
import { postgresDeliveries } from './inbox-deliveries.js';
import { deliveriesSql } from './inbox-deliveries-sql.js';
import { type PostgresInboxOptions, resolveInboxOptions } from './inbox-options.js';
import { inboxSql } from './inbox-sql.js';
import { guardTx } from './inbox-tx-guard.js';
import { quoteSchema } from './schema/identifier.js';

/**
 * What a transactional inbox hands the handler as `ctx.tx`: the postgres.js transaction `sql`,
 * or the `pg` connection inside BEGIN (its `query`, typed as your client's).
 *
 * @example
 * ```ts
 * import type pg from 'pg';
 * import type { PostgresTx } from 'loyalty-partner-sdk/postgres';
 * type Tx = PostgresTx<pg.Pool>; // { query: pg.Pool['query'] }
 * ```
 */
export type PostgresTx<D> = D extends { unsafe: unknown }
  ? D
  : D extends { query: unknown }
    ? Pick<D, 'query'>
    : never;

/**
 * An inbox whose `transaction` runs the handler inside the claim's transaction.
 */
export type TransactionalInbox<D> = DeferredInboxStore<PostgresTx<D>> & {
  transaction(key: InboxKey, work: (tx: PostgresTx<D>) => Promise<void>): Promise<InboxClaim>;
  runHandled(claim: ClaimedDeliveryOf, work: (tx: PostgresTx<D>) => Promise<void>): Promise<boolean>;
};

type ClaimedDeliveryOf = Parameters<DeferredInboxStore['markHandled']>[0];

/**
 * The receiver inbox in Postgres: the handler runs once per `eventId` across every process that
 * shares the database. Claims use the primary key on the event id; a claim whose process died is
 * taken over after `leaseMs`; done rows are kept 25 hours and then deleted by the store itself,
 * a small batch at a time. With `transactional: true` the handler runs inside the claim's
 * transaction and gets `ctx.tx`: its writes and the "done" mark commit together or not at all.
 * Run {@link migrate} first.
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT`, `INVALID_SCHEMA` or `INVALID_OPTIONS` at once;
 * while running, `UNREACHABLE`, `CONNECTION_LOST`, `NOT_MIGRATED` or `QUERY_FAILED` (the
 * receiver answers 503, so the delivery comes back)
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 * import { postgresInbox } from 'loyalty-partner-sdk/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * export const receiver = createReceiver({
 *   secrets: 'whsec_example',
 *   inbox: postgresInbox(pool, { schema: 'loyalty' }),
 *   handlers: {},
 * });
 * ```
 */
export function postgresInbox<D extends PostgresDb>(
  db: D,
  options: PostgresInboxOptions & { transactional: true },
): TransactionalInbox<D>;
export function postgresInbox(
  db: PostgresDb,
  options?: PostgresInboxOptions & { transactional?: false },
): DeferredInboxStore;
export function postgresInbox(db: PostgresDb, options: PostgresInboxOptions = {}): DeferredInboxStore {
  const settings = resolveInboxOptions(options);
  const s = quoteSchema(settings.schema, 'postgresInbox');
  const database = toStoreDatabase(db, 'postgresInbox');
  const sql = inboxSql(s);
  const deferredSql = deliveriesSql(s);
  prepareStatements([...Object.values(sql), ...Object.values(deferredSql)]);
  const fail = (err: unknown, what: string) => toStoreError(err, `postgresInbox ${what}`, settings.schema);
  const cleanup = cleaner(database, sql.cleanup, settings);

  const claim = async (
    runner: SqlRunner,
    key: InboxKey,
    status: 'in-progress' | 'done',
  ): Promise<InboxClaim> => {
    const claimed = await runner.query(sql.claim, [
      key.eventId,
      key.eventType,
      key.tenantId,
      status,
      settings.leaseMs,
    ]);
    cleanup();
    if (claimed.rowCount === 1) return 'new';
    const { rows } = await runner.query<{ status: string }>(sql.status, [key.eventId]);
    // No row: released between the two statements. The service comes back later.
    return rows[0]?.status === 'done' ? 'done' : 'in-progress';
  };

  const deferred = postgresDeliveries(database, deferredSql, settings, fail);
  const immediate: InboxStore = {
    // Without `transactional` a claim is a row that holds for the lease; with it, the claim is
    // the open transaction itself (it ends with its connection), so there is no lease to check.
    leaseMs: settings.transactional ? undefined : settings.leaseMs,
    async begin(key) {
      try {
        return await claim(database, key, 'in-progress');
      } catch (err) {
        throw fail(err, 'begin');
      }
    },
    async complete(key) {
      try {
        await database.query(sql.complete, [key.eventId]);
      } catch (err) {
        throw fail(err, 'complete');
      }
    },
    async release(key) {
      try {
        await database.query(sql.release, [key.eventId]);
      } catch (err) {
        throw fail(err, 'release');
      }
    },
    async extend(key) {
      try {
        return (await database.query(sql.extend, [key.eventId])).rowCount === 1;
      } catch (err) {
        throw fail(err, 'extend');
      }
    },
  };
  // Stored deliveries (deferred mode) always hold a lease: a claimed row, renewed while its
  // handler runs. Immediate transactional claims have none (the transaction is the claim).
  const store: DeferredInboxStore<unknown> = {
    ...deferred,
    ...immediate,
    leaseMs: settings.leaseMs,
  };
  if (!settings.transactional) return store as DeferredInboxStore;

  const lockTimeout = `${settings.lockTimeoutMs}ms`;
  const transaction = async (key: InboxKey, work: (tx: unknown) => Promise<void>): Promise<InboxClaim> => {
    let workFailed = false;
    try {
      return await database.transaction(async (tx, raw) => {
        // A concurrent copy blocks on the first copy's uncommitted row: wait this long at most.
        const { rows } = await tx.query<{ previous: string }>(
          "SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', $1, true)",
          [lockTimeout],
        );
        let found: InboxClaim;
        try {
          found = await claim(tx, key, 'done');
        } catch (err) {
          if (codeOf(err) === '55P03') throw new InProgress();
          throw err;
        }
        if (found !== 'new') return found;
        await tx.query("SELECT set_config('lock_timeout', $1, true)", [rows[0]?.previous ?? '0']);
        const guard = guardTx(raw);
        try {
          await work(guard.tx);
        } catch (err) {
          workFailed = true;
          throw err;
        } finally {
          guard.end();
        }
        return 'new';
      });
    } catch (err) {
      if (err instanceof InProgress) return 'in-progress';
      if (workFailed) throw err;
      throw fail(err, 'transaction');
    }
  };
  return Object.assign(store, { transaction }) as DeferredInboxStore;
}

/** Thrown inside the transaction to roll it back when the lock wait timed out. */
class InProgress extends Error {}

const codeOf = (err: unknown): unknown => (err as { code?: unknown } | null)?.code;

/** Every `cleanupEvery` claims, one batch of expired rows is deleted in the background (inbox and outbox). */
export function cleaner(
  database: Database,
  statement: string,
  settings: { retentionMs: number; cleanupEvery: number; cleanupBatchSize: number },
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
