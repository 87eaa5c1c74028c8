import { warn } from '../internal/warn.js';
import type {
  ClaimOutcome,
  ClaimRequest,
  EventPatch,
  EventState,
  SharedStore,
  StoredTenantStop,
} from '../outbox/store.js';
import {
  checkPreparesBehindPooler,
  type PostgresDb,
  prepareStatements,
  toStoreDatabase,
} from './database.js';
import { isConflict, PostgresStoreError } from './errors.js';
import { checkListening, idleMarks, LISTEN_CHECK_MS, listenOn } from './outbox-listen.js';
import { keyLocks } from './outbox-locks.js';
import { type OutboxRow, toStoredEvent } from './outbox-rows.js';
import { lockSpace, wakeChannel } from './outbox-schema.js';
import { outboxSql } from './outbox-sql.js';
import { enqueueWithTx, type PostgresOutboxTx, toOutboxStoreError } from './outbox-tx.js';
import { sameDatabase } from './same-database.js';
import { quoteSchema } from './schema/identifier.js';
import { cleaner, type PostgresStoreOptions, resolveStoreOptions } from './store-options.js';

/**
 * The outbox in the POS server's own Postgres, for `createOutbox({ store })`:
 * `outbox.enqueue(type, payload, { tx })` writes the event with the caller's transaction, so it
 * commits or rolls back with the sale, and any number of processes calling `outbox.start()`
 * drain the table together. Each event is claimed by one process at a time (`FOR UPDATE SKIP
 * LOCKED`, with a lease, so a killed process's claims come back); events about one entity (a
 * customer, an invoice) are sent one after the other in commit order. Run {@link migrate} first.
 * The store never opens connections of its own.
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT`, `INVALID_SCHEMA` or `INVALID_OPTIONS` at once;
 * while running, `UNREACHABLE`, `CONNECTION_LOST`, `NOT_MIGRATED` or `QUERY_FAILED`
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * import { createOutbox } from 'loyalty-partner-sdk/outbox';
 * import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool, { schema: 'loyalty' });
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * const outbox = createOutbox({ client, store: postgresStore(pool, { schema: 'loyalty' }) });
 * await outbox.start();
 * ```
 */
export function postgresStore(
  db: PostgresDb,
  options: PostgresStoreOptions = {},
): SharedStore<PostgresOutboxTx> {
  const settings = resolveStoreOptions(options);
  const s = quoteSchema(settings.schema, 'postgresStore');
  const database = toStoreDatabase(db, 'postgresStore');
  const channel = wakeChannel(s);
  const sql = outboxSql(s, channel);
  const { enqueueInTx, ...single } = sql;
  prepareStatements([
    ...Object.values(single),
    ...Object.values(enqueueInTx.given),
    ...Object.values(enqueueInTx.fresh),
  ]);
  const space = lockSpace(s);
  const cleanup = cleaner(database, sql.cleanup, settings);
  // Which database this store drains: a caller's transaction on another one is refused.
  const ownDatabase = sameDatabase();
  // Who holds a claim: this store instance (a process may run several outboxes).
  const owner = `outbox-${globalThis.crypto.randomUUID()}`;
  // Events this store claimed and has not recorded an outcome for.
  const held = new Set<string>();
  // A write whose answer was lost may have committed: the next claim frees what it no longer sends.
  let claimsInDoubt = false;
  const idle = idleMarks(database, sql, owner);

  // What is wrong with the connections, said where the user looks, the outbox going on.
  const report = (err: PostgresStoreError) => {
    try {
      settings.onError?.(err);
    } catch {}
  };

  const run = async <T>(what: string, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      throw toOutboxStoreError(err, what, settings.schema);
    }
  };
  const rows = async (text: string, params: readonly unknown[]): Promise<OutboxRow[]> =>
    (await database.query<OutboxRow>(text, params)).rows;
  const eventIds = async (text: string, params: readonly unknown[]): Promise<string[]> =>
    (await database.query<{ event_id: string }>(text, params)).rows.map((row) => row.event_id);
  const claimRows = async (request: ClaimRequest, outcomes: readonly ClaimOutcome[]) => {
    const params = [
      owner,
      request.limit,
      request.maxInFlight,
      request.leaseMs,
      request.onlyTenants ?? null,
      request.skipTenants,
      settings.claimWindow,
      Object.keys(request.inFlight ?? {}),
      Object.values(request.inFlight ?? {}),
      ...outcomeParams(outcomes),
    ];
    type Row = OutboxRow & { recorded: string | null };
    const { rows } = await database.query<Row>(sql.recordAndClaim, params);
    const recorded: string[] = [];
    const claimed: OutboxRow[] = [];
    for (const row of rows) {
      if (row.recorded === null) claimed.push(row);
      else recorded.push(row.recorded);
    }
    return { recorded, claimed };
  };

  // The outbox retries a failing drain silently: the store says so once per outage, and when it recovers.
  let failing = false;

  /** The outcomes first, in the same statement and commit, then the claim (which sees them). */
  const recordAndClaim = async (outcomes: readonly ClaimOutcome[], request: ClaimRequest) => {
    // Done with these either way: what a failed call leaves claimed, the next claim frees.
    for (const outcome of outcomes) held.delete(outcome.eventId);
    let result: { recorded: string[]; claimed: OutboxRow[] };
    try {
      if (claimsInDoubt) {
        await database.query(sql.releaseOrphans, [owner, [...held]]);
        claimsInDoubt = false;
      }
      result = await claimRows(request, outcomes);
      // Only an unfiltered claim by a store sending nothing can tell it has nothing to do.
      const busy = held.size > 0 || result.claimed.length > 0;
      if (request.onlyTenants === undefined && (await idle.afterClaim(busy))) {
        // A row committed between that claim and the idle mark notified no one: look again.
        const again = await claimRows(request, []);
        result.claimed = again.claimed;
        await idle.afterClaim(again.claimed.length > 0);
      }
    } catch (err) {
      claimsInDoubt = true;
      const failure = toOutboxStoreError(err, 'claim', settings.schema);
      // A conflict that outlasted the statement's retries is bad luck, not an outage.
      if (!failing && !isConflict(failure.cause ?? err)) {
        failing = true;
        warn(`${failure.message} (the outbox polls on)`, `LOYALTY_POSTGRES_DRAIN_${failure.code}`, true);
        report(failure);
      }
      throw failure;
    }
    if (failing) {
      failing = false;
      warn(
        'postgresStore: claims work again after the failure reported before',
        'LOYALTY_POSTGRES_DRAIN_RECOVERED',
      );
    }
    cleanup();
    for (const row of result.claimed) held.add(row.event_id);
    return { recorded: result.recorded, claimed: result.claimed.map(toStoredEvent) };
  };

  return {
    kind: 'shared',

    open: () =>
      run('open', async () => {
        const [{ rows: stops }, , prepares] = await Promise.all([
          database.query<{ tenant_id: string; reason: string; since: string }>(sql.stops),
          ownDatabase.learn(database),
          checkPreparesBehindPooler(database).catch(() => undefined),
        ]);
        if (prepares) report(new PostgresStoreError('PREPARES_BEHIND_POOLER', `postgresStore: ${prepares}`));
        return {
          stoppedTenants: stops.map((row) => ({
            tenantId: row.tenant_id,
            reason: row.reason,
            since: Number(row.since),
          })),
        };
      }),

    async append(event, { keys, tx, freshEventId = false }) {
      const locks = keyLocks(event.tenantId, keys);
      const params = [
        event.eventId,
        event.tenantId,
        event.envelope.eventType,
        JSON.stringify(event.envelope),
        event.enqueuedAt,
        keys.changes,
        keys.needs,
        event.traceparent ?? null,
        space,
        locks.ids,
        locks.exclusive,
      ];
      if (tx !== undefined) {
        const withDatabase = [...params, ...ownDatabase.params()];
        await enqueueWithTx(sql, tx, { params: withDatabase, fresh: freshEventId }, settings.schema);
        return;
      }
      await run('enqueue', () => database.query(sql.enqueue, params));
    },

    claim: async (request: ClaimRequest) => (await recordAndClaim([], request)).claimed,
    recordAndClaim,

    extendLease: (ids: readonly string[], leaseMs: number) =>
      run('extendLease', async () =>
        ids.length === 0 ? [] : eventIds(sql.extendLease, [owner, ids, leaseMs]),
      ),

    record: (outcomes: readonly ClaimOutcome[]) =>
      run('record', async () => {
        if (outcomes.length === 0) return [];
        // Done with these either way: what a failed write leaves claimed, the next claim frees.
        for (const outcome of outcomes) held.delete(outcome.eventId);
        try {
          return await eventIds(sql.record, [owner, ...outcomeParams(outcomes)]);
        } catch (err) {
          claimsInDoubt = true;
          throw err;
        }
      }),

    update: (eventId: string, patch: EventPatch) =>
      run('update', async () => {
        await database.query(sql.update, [eventId, JSON.stringify(patch)]);
      }),

    remove: (eventIds: readonly string[]) =>
      run('remove', async () => {
        if (eventIds.length > 0) await database.query(sql.remove, [eventIds]);
      }),

    setTenantStop: (tenantId: string, stop: StoredTenantStop | null) =>
      run('setTenantStop', async () => {
        if (stop) await database.query(sql.stop, [tenantId, stop.reason, stop.since]);
        else await database.query(sql.resume, [tenantId]);
      }),

    get: (eventId: string) =>
      run('get', async () => {
        const [row] = await rows(sql.get, [eventId]);
        return row === undefined ? undefined : toStoredEvent(row);
      }),

    list: (
      state: EventState,
      filter: { readonly tenantId?: string | undefined; readonly limit?: number | undefined } = {},
    ) =>
      run('list', async () =>
        (await rows(sql.list, [state, filter.tenantId ?? null, filter.limit ?? 1000])).map(toStoredEvent),
      ),

    counts: () =>
      run('counts', async () => {
        const counts: Record<EventState, number> = { pending: 0, parked: 0, dead: 0, expired: 0 };
        const { rows: found } = await database.query<{ state: EventState; n: number }>(sql.counts);
        for (const row of found) counts[row.state] = row.n;
        return counts;
      }),

    ...(settings.listen && {
      watch: (wake: () => void) =>
        run('listen', async () => {
          const probe = `check:${owner}`;
          let check: ReturnType<typeof checkListening> | undefined;
          const stop = await listenOn(settings.listen!, channel, (payload) => {
            check?.heard(payload);
            wake();
          });
          idle.listening(true);
          // Behind a transaction pooler a notification through `db` never arrives: checked.
          check = checkListening((payload) => database.query(sql.notifyCheck, [payload]), probe);
          await check.sent;
          void check.result.then((heard) => {
            if (heard !== false) return;
            const message =
              `postgresStore: the listen connection did not hear a notification within ${LISTEN_CHECK_MS} ms: ` +
              'it goes through a transaction pooler (PgBouncer in transaction mode, Supabase, Neon, RDS Proxy), ' +
              'where LISTEN cannot work. Give listen a direct or session-mode connection (docs/outbox.md); ' +
              'meanwhile this outbox finds new events by polling (pollIntervalMs)';
            warn(message, 'LOYALTY_POSTGRES_LISTEN', true);
            report(new PostgresStoreError('LISTEN_NOT_WORKING', message));
          });
          return async () => {
            check?.cancel();
            await idle.listening(false);
            await stop();
          };
        }),
    }),

    countsByTenant: () =>
      run('countsByTenant', async () => {
        type Row = { tenant_id: string; state: EventState; n: number; oldest: string | number };
        const { rows } = await database.query<Row>(sql.countsByTenant);
        const byTenant = new Map<string, TenantCounts>();
        for (const { tenant_id: tenantId, state, n, oldest } of rows) {
          const tenant = byTenant.get(tenantId) ?? { tenantId, states: {}, oldestPendingAt: null };
          byTenant.set(tenantId, tenant);
          tenant.states[state] = n;
          if (state === 'pending') tenant.oldestPendingAt = Number(oldest);
        }
        return [...byTenant.values()];
      }),

    close: () =>
      run('close', async () => {
        // Whatever this process still holds (an aborted send) is due again at once for the others.
        await database.query(sql.releaseOrphans, [owner, []]);
        held.clear();
      }),
  };
}

interface TenantCounts {
  tenantId: string;
  states: Partial<Record<EventState, number>>;
  oldestPendingAt: number | null;
}

/** Outcomes as the four arrays `record` takes: event ids, kinds, patches, retry delays. */
function outcomeParams(outcomes: readonly ClaimOutcome[]): unknown[] {
  return [
    outcomes.map((outcome) => outcome.eventId),
    outcomes.map((outcome) => outcome.kind),
    outcomes.map((outcome) => JSON.stringify('patch' in outcome ? outcome.patch : {})),
    outcomes.map((outcome) => (outcome.kind === 'retry' ? Math.max(0, Math.ceil(outcome.retryAfterMs)) : 0)),
  ];
}
