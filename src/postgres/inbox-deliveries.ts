import type {
  ClaimedDelivery,
  DeferredInboxStore,
  DeliveryRecord,
  DeliveryState,
} from '../webhooks/inbox.js';
import { foldTenantStats, type TenantStateCount } from '../webhooks/tenant-stats.js';
import type { Database } from './database.js';
import type { deliveriesSql } from './inbox-deliveries-sql.js';
import { guardTx } from './inbox-tx-guard.js';

type DeferredPart = Omit<
  DeferredInboxStore<unknown>,
  'begin' | 'complete' | 'release' | 'transaction' | 'extend'
>;

interface ClaimRow {
  event_id: string;
  event_type: string;
  tenant_id: string;
  raw_body: string;
  correlation_id: string;
  signature_timestamp: number;
  secret_index: number;
  received_ms: number;
  attempts: number;
}

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

const toClaim = (row: ClaimRow, owner: string): ClaimedDelivery => ({
  eventId: row.event_id,
  eventType: row.event_type,
  tenantId: row.tenant_id,
  rawBody: row.raw_body,
  correlationId: row.correlation_id,
  signatureTimestamp: Number(row.signature_timestamp),
  secretIndex: row.secret_index,
  receivedAt: Number(row.received_ms),
  owner,
  attempt: row.attempts,
});

/**
 * The deferred half of `postgresInbox()`, on `inbox_deliveries`. `fail` turns a driver error
 * into the store's error; `transactional` adds `runHandled` (the handler's `ctx.tx` writes and
 * the `handled` mark commit together).
 */
export function postgresDeliveries(
  database: Database,
  sql: ReturnType<typeof deliveriesSql>,
  settings: { leaseMs: number; retentionMs: number; transactional: boolean },
  fail: (err: unknown, what: string) => Error,
): DeferredPart {
  const { leaseMs } = settings;
  const run = async <Row>(what: string, text: string, params: readonly unknown[]) => {
    try {
      return await database.query<Row>(text, params);
    } catch (err) {
      throw fail(err, what);
    }
  };
  const mine = (claim: ClaimedDelivery) => [claim.eventId, claim.owner, claim.attempt];
  const marked = async (what: string, text: string, params: readonly unknown[]) =>
    (await run(what, text, params)).rowCount === 1;

  const part: DeferredPart = {
    leaseMs,
    async store(d, state, reason) {
      const params: unknown[] = [d.eventId, d.eventType, d.tenantId, d.rawBody, d.correlationId];
      params.push(d.signatureTimestamp, d.secretIndex, d.receivedAt, state);
      params.push(state === 'parked' ? (reason ?? null) : null);
      return (await marked('store', sql.store, params)) ? 'stored' : 'duplicate';
    },
    async claimDue(owner, limit) {
      const { rows } = await run<ClaimRow>('claimDue', sql.claimDue, [owner, limit, leaseMs]);
      return rows.map((row) => toClaim(row, owner));
    },
    async markHandledAndClaim(handled, owner, limit) {
      const params = [owner, limit, leaseMs, handled.map((c) => c.eventId), handled.map((c) => c.attempt)];
      const { rows } = await run<ClaimRow & { marked: string | null }>(
        'markHandledAndClaim',
        sql.markHandledAndClaim,
        params,
      );
      const marked: string[] = [];
      const claims: ClaimedDelivery[] = [];
      for (const row of rows) {
        if (row.marked === null) claims.push(toClaim(row, owner));
        else marked.push(row.marked);
      }
      return { marked, claims };
    },
    async extendLease(owner, eventIds) {
      if (eventIds.length === 0) return [];
      const { rows } = await run<{ event_id: string }>('extendLease', sql.extendLease, [
        owner,
        eventIds,
        leaseMs,
      ]);
      const held = new Set(rows.map((row) => row.event_id));
      return eventIds.filter((id) => !held.has(id));
    },
    markHandled: (claim) => marked('markHandled', sql.markHandled, mine(claim)),
    markFailed: (claim, failure) =>
      marked('markFailed', sql.markFailed, [...mine(claim), failure.error, failure.retryInMs ?? null]),
    markParked: (claim, reason) => marked('markParked', sql.markParked, [...mine(claim), reason]),
    async stats() {
      const counts: Record<DeliveryState, number> = { pending: 0, handled: 0, dead: 0, parked: 0 };
      const { rows } = await run<{ state: DeliveryState; n: number }>('stats', sql.stats, []);
      for (const row of rows) counts[row.state] = Number(row.n);
      return counts;
    },
    async statsByTenant() {
      const { rows } = await run<{
        tenant_id: string;
        state: TenantStateCount['state'];
        n: number;
        oldest_ms: number;
      }>('statsByTenant', sql.statsByTenant, []);
      return foldTenantStats(
        rows.map((row) => ({
          tenantId: row.tenant_id,
          state: row.state,
          n: Number(row.n),
          oldest: Number(row.oldest_ms),
        })),
      );
    },
    async list({ state, tenantId, limit = 100 }) {
      const { rows } = await run<ListRow>('list', sql.list, [state, tenantId ?? null, limit]);
      return rows.map(
        (row): DeliveryRecord => ({
          eventId: row.event_id,
          eventType: row.event_type,
          tenantId: row.tenant_id,
          state: row.state,
          attempts: row.attempts,
          lastError: row.last_error ?? undefined,
          receivedAt: new Date(Number(row.received_ms)),
          nextAttemptAt: row.state === 'pending' ? new Date(Number(row.next_ms)) : undefined,
          settledAt: row.settled_ms === null ? undefined : new Date(Number(row.settled_ms)),
        }),
      );
    },
    replay: (eventId) => marked('replay', sql.replay, [eventId]),
    discard: (eventId) => marked('discard', sql.discard, [eventId]),
    async cleanup(batchSize) {
      return (await run('cleanup', sql.cleanup, [settings.retentionMs, batchSize])).rowCount;
    },
  };
  if (!settings.transactional) return part;

  part.runHandled = async (claim, work) => {
    let workFailed = false;
    try {
      return await database.transaction(async (tx, raw) => {
        // Marked first: the mark's row lock is the claim from here to COMMIT (no claim takes a
        // locked row), and a handler that throws rolls the mark back with its own writes.
        const { rowCount } = await tx.query(sql.markHandled, mine(claim));
        if (rowCount !== 1) return false;
        const guard = guardTx(raw);
        try {
          await work(guard.tx);
        } catch (err) {
          workFailed = true;
          throw err;
        } finally {
          guard.end();
        }
        return true;
      });
    } catch (err) {
      if (workFailed) throw err;
      throw fail(err, 'runHandled');
    }
  };
  return part;
}
