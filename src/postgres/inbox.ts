import { codeOf } from '../internal/code-of.js';
import type {
  ClaimedDelivery,
  DeferredInboxStore,
  DeliveryRecord,
  DeliveryState,
  InboxAudit,
  InboxClaim,
  InboxKey,
} from '../webhooks/inbox.js';
import { TENANT_STATS_LIMIT } from '../webhooks/tenant-stats.js';
import { type PostgresDb, prepareStatements, type SqlRunner, toStoreDatabase } from './database.js';
import { PostgresStoreError, rethrowAs, toStoreError } from './errors.js';
import { inboxSql } from './inbox-sql.js';
import { guardTx } from './inbox-tx-guard.js';
import { quoteSchema } from './schema/identifier.js';
import { cleaner, type PostgresInboxOptions, resolveInboxOptions } from './store-options.js';

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

/** An inbox whose `transaction` runs the handler inside the claim's transaction. */
export type TransactionalInbox<D> = DeferredInboxStore<PostgresTx<D>> & {
  transaction(key: InboxKey, work: (tx: PostgresTx<D>) => Promise<void>): Promise<InboxClaim>;
  runHandled(claim: ClaimedDelivery, work: (tx: PostgresTx<D>) => Promise<void>): Promise<boolean>;
};

interface ListRow {
  event_id: string;
  event_type: string;
  tenant_id: string;
  state: DeliveryState;
  attempts: number;
  last_error: string | null;
  received_ms: number;
  next_ms: number;
  settled_ms: number | null;
}

interface TenantRow {
  tenant_id: string;
  pending: number;
  dead: number;
  parked: number;
  oldest_ms: number | null;
  total: number;
}

const toRecord = (row: ListRow): DeliveryRecord => ({
  eventId: row.event_id,
  eventType: row.event_type,
  tenantId: row.tenant_id,
  state: row.state,
  attempts: row.attempts,
  lastError: row.last_error ?? undefined,
  receivedAt: new Date(Number(row.received_ms)),
  nextAttemptAt: row.state === 'pending' ? new Date(Number(row.next_ms)) : undefined,
  settledAt: row.settled_ms === null ? undefined : new Date(Number(row.settled_ms)),
});

/** The most connections the user's client opens, where the driver says (pg Pool, postgres.js). */
function poolSizeOf(db: PostgresDb): number | undefined {
  const { options } = db as { options?: { max?: unknown } };
  if (typeof options?.max === 'number') return options.max;
  // A pg Pool without `max` opens pg's default of 10; a single client is one connection.
  if ('totalCount' in db) return 10;
  return 'unsafe' in db ? undefined : 1;
}

/**
 * The receiver inbox in Postgres: one record per event id for immediate and deferred receipt, so
 * the handler runs once per `eventId` across every process sharing the database. Claims hold a
 * lease (`leaseMs`); handled records are deleted by the store after the retention. With
 * `transactional: true` the handler gets `ctx.tx`: its writes and the "handled" mark commit
 * together or not at all. Run {@link migrate} first.
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
  const { leaseMs } = settings;
  const s = quoteSchema(settings.schema, 'postgresInbox');
  const database = toStoreDatabase(db, 'postgresInbox');
  const sql = inboxSql(s);
  prepareStatements(Object.values(sql));
  const fail = (err: unknown, what: string) => toStoreError(err, `postgresInbox ${what}`, settings.schema);
  const failAs = (what: string) => rethrowAs(`postgresInbox ${what}`, settings.schema);
  const run = <Row>(what: string, text: string, params: readonly unknown[]) =>
    database.query<Row>(text, params).catch(failAs(what));
  const changed = async (what: string, text: string, params: readonly unknown[]) =>
    (await run(what, text, params)).rowCount === 1;
  const mine = (claim: ClaimedDelivery) => [claim.eventId, claim.owner, claim.attempt];
  const cleanup = cleaner(database, sql.cleanup, settings);
  const audited = (what: 'replay' | 'discard') => async (eventId: string, audit?: InboxAudit) => {
    const detail = audit?.detail === undefined ? null : JSON.stringify(audit.detail);
    return changed(what, sql[what], [eventId, audit?.actor ?? null, detail]);
  };

  const claim = async (runner: SqlRunner, key: InboxKey, text: string): Promise<InboxClaim> => {
    const params = [key.eventId, key.eventType, key.tenantId];
    const claimed = await runner.query(text, text === sql.begin ? [...params, leaseMs] : params);
    cleanup();
    if (claimed.rowCount === 1) return 'new';
    const { rows } = await runner.query<{ state: string }>(sql.state, [key.eventId]);
    // No row: released between the two statements. The service comes back later.
    return rows[0]?.state === 'handled' ? 'done' : 'in-progress';
  };

  const store: DeferredInboxStore<unknown> = {
    leaseMs,
    poolSize: poolSizeOf(db),
    begin: (key) => claim(database, key, sql.begin).catch(failAs('begin')),
    complete: async (key) => void (await run('complete', sql.complete, [key.eventId])),
    release: async (key) => void (await run('release', sql.release, [key.eventId])),
    extend: (key) => changed('extend', sql.extend, [key.eventId, leaseMs]),
    async store(d, state, reason) {
      const params: unknown[] = [d.eventId, d.eventType, d.tenantId, d.rawBody, d.correlationId];
      params.push(d.signatureTimestamp, d.secretIndex, d.receivedAt, state);
      params.push(state === 'parked' ? (reason ?? null) : null);
      return (await changed('store', sql.store, params)) ? 'stored' : 'duplicate';
    },
    async claimDue(owner, limit) {
      return (await run<ClaimedDelivery>('claimDue', sql.claimDue, [owner, limit, leaseMs])).rows;
    },
    async markHandledAndClaim(handled, owner, limit) {
      const params = [owner, limit, leaseMs, handled.map((c) => c.eventId), handled.map((c) => c.attempt)];
      type Row = ClaimedDelivery & { marked: string | null };
      const { rows } = await run<Row>('markHandledAndClaim', sql.markHandledAndClaim, params);
      const marked: string[] = [];
      const claims: ClaimedDelivery[] = [];
      for (const { marked: id, ...claim } of rows) {
        if (id === null) claims.push(claim);
        else marked.push(id);
      }
      return { marked, claims };
    },
    async extendLease(owner, eventIds) {
      if (eventIds.length === 0) return [];
      const params = [owner, eventIds, leaseMs];
      const { rows } = await run<{ event_id: string }>('extendLease', sql.extendLease, params);
      const held = new Set(rows.map((row) => row.event_id));
      return eventIds.filter((id) => !held.has(id));
    },
    markHandled: (claim) => changed('markHandled', sql.markHandled, mine(claim)),
    markFailed: (claim, failure) =>
      changed('markFailed', sql.markFailed, [...mine(claim), failure.error, failure.retryInMs ?? null]),
    markParked: (claim, reason) => changed('markParked', sql.markParked, [...mine(claim), reason]),
    async stats() {
      const counts: Record<DeliveryState, number> = { pending: 0, handled: 0, dead: 0, parked: 0 };
      const { rows } = await run<{ state: DeliveryState; n: number }>('stats', sql.stats, []);
      for (const row of rows) counts[row.state] = Number(row.n);
      return counts;
    },
    async statsByTenant(query = {}) {
      const params = [query.limit ?? TENANT_STATS_LIMIT, query.tenantId ?? null];
      const { rows } = await run<TenantRow>('statsByTenant', sql.statsByTenant, params);
      const tenants = rows.map((row) => {
        const states: Partial<Record<'pending' | 'dead' | 'parked', number>> = {};
        for (const state of ['pending', 'dead', 'parked'] as const)
          if (row[state] > 0) states[state] = row[state];
        const oldestPendingAt = row.oldest_ms === null ? null : Number(row.oldest_ms);
        return { tenantId: row.tenant_id, states, oldestPendingAt };
      });
      return { tenants, totalTenants: rows[0]?.total ?? 0 };
    },
    async list({ state, tenantId, limit = 100 }) {
      const { rows } = await run<ListRow>('list', sql.list, [state, tenantId ?? null, limit]);
      return rows.map(toRecord);
    },
    replay: audited('replay'),
    discard: audited('discard'),
    async cleanup(batchSize) {
      return (await run('cleanup', sql.cleanup, [settings.retentionMs, batchSize])).rowCount;
    },
  };
  if (!settings.transactional) return store as DeferredInboxStore;

  /** Runs `work` with the handler's `ctx.tx`, guarded against use after it returned. */
  const inside = async (raw: unknown, work: (tx: unknown) => Promise<void>) => {
    const guard = guardTx(raw);
    try {
      await work(guard.tx);
    } finally {
      guard.end();
    }
  };
  /** Is `tx` still the transaction opened with `token`, not ended by the handler itself? */
  const stillOpen = async (tx: SqlRunner, token: string) => {
    const { rows } = await tx.query<{ same: boolean }>(sql.sameTransaction, [token]);
    if (rows[0]?.same !== true) throw endedByHandler();
  };

  const lockTimeout = `${settings.lockTimeoutMs}ms`;
  const transaction = async (key: InboxKey, work: (tx: unknown) => Promise<void>): Promise<InboxClaim> => {
    let workFailed = false;
    try {
      return await database.transaction(async (tx, raw) => {
        // A concurrent copy blocks on the first copy's uncommitted row: wait this long at most.
        const token = globalThis.crypto.randomUUID();
        const { rows } = await tx.query<{ previous: string }>(
          "SELECT current_setting('lock_timeout') AS previous, set_config('lock_timeout', $1, true), set_config('loyalty_partner.claim', $2, true)",
          [lockTimeout, token],
        );
        let found: InboxClaim;
        try {
          found = await claim(tx, key, sql.beginHandled);
        } catch (err) {
          if (codeOf(err) === '55P03') throw new InProgress();
          throw err;
        }
        if (found !== 'new') return found;
        await tx.query("SELECT set_config('lock_timeout', $1, true)", [rows[0]?.previous ?? '0']);
        workFailed = true;
        await inside(raw, work);
        workFailed = false;
        await stillOpen(tx, token);
        return 'new';
      });
    } catch (err) {
      if (err instanceof InProgress) return 'in-progress';
      if (workFailed || isEndedByHandler(err)) throw err;
      throw fail(err, 'transaction');
    }
  };

  // Marked handled last, with the handler's writes: until then the lease is the claim and no row
  // lock is held, so receipts never wait. At most a quarter of the pool runs at once.
  const slots = limiter(Math.max(1, Math.floor((store.poolSize ?? 10) / 4)));
  const runHandled = (claim: ClaimedDelivery, work: (tx: unknown) => Promise<void>) =>
    slots(async () => {
      let workFailed = false;
      const token = `${claim.owner}/${claim.attempt}/${claim.eventId}`;
      try {
        return await database.transaction(async (tx, raw) => {
          if ((await tx.query(sql.openRun, [...mine(claim), token])).rowCount !== 1) return false;
          workFailed = true;
          await inside(raw, work);
          workFailed = false;
          const { rowCount } = await tx.query(sql.markHandledIn, [...mine(claim), token]);
          if (rowCount === 1) return true;
          await stillOpen(tx, token);
          // The lease ran out and another run took the delivery over: this one rolls back.
          throw new LostClaim();
        });
      } catch (err) {
        if (err instanceof LostClaim) return false;
        if (isEndedByHandler(err)) {
          // Running it again would commit its writes after the ROLLBACK again: dead at once.
          await run('runHandled', sql.markDead, [claim.eventId, err.message]).catch(() => undefined);
          throw err;
        }
        if (workFailed) throw err;
        throw fail(err, 'runHandled');
      }
    });
  return Object.assign(store, { transaction, runHandled }) as DeferredInboxStore;
}

const endedByHandler = () =>
  new PostgresStoreError(
    'HANDLER_ENDED_TRANSACTION',
    'The handler ended its transaction itself (ROLLBACK or COMMIT through ctx.tx): what it wrote afterwards committed on its own. Throw from the handler to roll back instead',
  );

const isEndedByHandler = (err: unknown): err is PostgresStoreError =>
  err instanceof PostgresStoreError && err.code === 'HANDLER_ENDED_TRANSACTION';

/** Thrown inside the transaction to roll it back when the lock wait timed out. */
class InProgress extends Error {}
/** Thrown inside the transaction to roll back a run whose claim another run took over. */
class LostClaim extends Error {}

/** Runs at most `max` tasks at once; the others wait their turn, in order. */
function limiter(max: number): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (active < max) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}
