import {
  DELIVERY_STATES,
  type DeferredInboxStore,
  type DeliveryRecord,
  type DeliveryState,
  type InboxAudit,
} from '../webhooks/inbox.js';
import { foldTenantStats, type TenantStateCount } from '../webhooks/tenant-stats.js';
import { evalScript, type RedisCommand } from './client.js';
import { RedisStoreError, rethrowAs } from './errors.js';
import { type inboxKeys, LOST_REASON, SCRIPTS } from './inbox-scripts.js';

type DeferredPart = Omit<DeferredInboxStore, 'begin' | 'complete' | 'release' | 'transaction' | 'extend'>;

/** How many ids one read of an index takes: a few round trips, and no script runs long. */
const PAGE = 500;

/**
 * The deferred and operator half of `redisInbox()`, on the same records as immediate receipt. No
 * `runHandled`: a handler that crashes after writing and before `markHandled` runs again.
 */
export function redisDeliveries(
  command: RedisCommand,
  settings: { keys: ReturnType<typeof inboxKeys>; leaseMs: number; retentionMs: number },
): DeferredPart {
  const { keys, leaseMs } = settings;
  const script = (what: string, text: string, on: readonly string[], args: (string | number)[]) =>
    evalScript(command, text, on, args).catch(rethrowAs(`redisInbox ${what}`));
  /** A script over the indexes and the records of `ids`. */
  const run = (what: string, text: string, ids: readonly string[], args: (string | number)[]) =>
    script(what, text, [...keys.indexes, ...ids.map(keys.record)], args);
  const read = (what: string, args: string[], key: string) =>
    command(args, key).catch(rethrowAs(`redisInbox ${what}`));
  const settle = async (
    what: string,
    claim: { eventId: string; owner: string; attempt: number },
    outcome: 'handled' | 'retry' | 'dead' | 'parked',
    error = '',
    retryInMs = 0,
  ) => {
    const args = [claim.eventId, claim.owner, claim.attempt, outcome, error, retryInMs];
    return (await run(what, SCRIPTS.settle, [claim.eventId], args)) === 1;
  };
  const audited = (what: 'replay' | 'discard') => async (eventId: string, audit?: InboxAudit) => {
    const args = audit ? [audit.actor, JSON.stringify(audit.detail ?? {})] : ['', '{}'];
    return (await run(what, SCRIPTS[what], [eventId], [eventId, ...args])) === 1;
  };
  /** Each id of one state's index, oldest received first, with its record's fields, page by page. */
  async function* scan(what: string, state: DeliveryState) {
    const index = keys.state(state);
    for (let start = 0; ; start += PAGE) {
      const range = ['ZRANGE', index, String(start), String(start + PAGE - 1)];
      const ids = (await read(what, range, index)) as string[];
      if (ids.length === 0) return;
      const rows = (await script(what, SCRIPTS.read, ids.map(keys.record), [])) as string[];
      for (let i = 0; i < ids.length; i++) yield { id: ids[i]!, row: rows.slice(i * 7, i * 7 + 7) };
      if (ids.length < PAGE) return;
    }
  }

  return {
    leaseMs,
    async store(d, state, reason) {
      const args = [d.eventId, d.eventType, d.tenantId, d.rawBody, d.correlationId, d.signatureTimestamp];
      args.push(d.secretIndex, d.receivedAt, state, reason ?? '');
      return (await run('store', SCRIPTS.store, [d.eventId], args)) === 1 ? 'stored' : 'duplicate';
    },
    async claimDue(owner, limit) {
      const ids = (await script('claimDue', SCRIPTS.due, [keys.due], [limit])) as string[];
      if (ids.length === 0) return [];
      const reply = await run('claimDue', SCRIPTS.claim, ids, [owner, leaseMs, ...ids]);
      const [flat, lost] = reply as [string[], string[]];
      if (lost.length > 0)
        throw new RedisStoreError(
          'DELIVERY_LOST',
          `redisInbox claimDue: ${lost.length} stored ${lost.length === 1 ? 'delivery was' : 'deliveries were'} ` +
            `${LOST_REASON}; parked, listed with that reason: ${lost.join(', ')}`,
        );
      const claims = [];
      for (let i = 0; i < flat.length; i += 9) {
        const [eventId, eventType, tenantId, rawBody, correlationId, sigTs, index, received, attempt] =
          flat.slice(i, i + 9) as string[];
        claims.push({
          eventId: eventId!,
          eventType: eventType!,
          tenantId: tenantId!,
          rawBody: rawBody!,
          correlationId: correlationId!,
          signatureTimestamp: Number(sigTs),
          secretIndex: Number(index),
          receivedAt: Number(received),
          owner,
          attempt: Number(attempt),
        });
      }
      return claims;
    },
    async extendLease(owner, eventIds) {
      if (eventIds.length === 0) return [];
      const args = [owner, leaseMs, ...eventIds];
      return (await run('extendLease', SCRIPTS.extendLease, eventIds, args)) as string[];
    },
    markHandled: (claim) => settle('markHandled', claim, 'handled'),
    markFailed: (claim, failure) =>
      failure.retryInMs === undefined
        ? settle('markFailed', claim, 'dead', failure.error)
        : settle('markFailed', claim, 'retry', failure.error, Math.max(0, Math.round(failure.retryInMs))),
    markParked: (claim, reason) => settle('markParked', claim, 'parked', reason),
    async stats() {
      const counts = {} as Record<DeliveryState, number>;
      for (const state of DELIVERY_STATES)
        counts[state] = Number(await read('stats', ['ZCARD', keys.state(state)], keys.state(state)));
      return counts;
    },
    async statsByTenant(query = {}) {
      const counts: TenantStateCount[] = [];
      for (const state of ['pending', 'dead', 'parked'] as const)
        for await (const { row } of scan('statsByTenant', state)) {
          const [, tenantId, , , received] = row;
          // A record gone since the index was read is not counted.
          if (received) counts.push({ tenantId: tenantId!, state, n: 1, oldest: Number(received) });
        }
      return foldTenantStats(counts, query);
    },
    async list({ state, tenantId, limit = 100 }) {
      const records: DeliveryRecord[] = [];
      for await (const { id, row } of scan('list', state)) {
        const [eventType, tenant, attempts, lastError, received, nextAt, settledAt] = row as string[];
        if (!received || (tenantId !== undefined && tenant !== tenantId)) continue;
        records.push({
          eventId: id,
          eventType: eventType!,
          tenantId: tenant!,
          state,
          attempts: Number(attempts),
          lastError: lastError || undefined,
          receivedAt: new Date(Number(received)),
          nextAttemptAt: state === 'pending' ? new Date(Number(nextAt || received)) : undefined,
          settledAt: settledAt ? new Date(Number(settledAt)) : undefined,
        });
        if (records.length >= limit) break;
      }
      return records;
    },
    replay: audited('replay'),
    discard: audited('discard'),
    async cleanup(batchSize) {
      const args = [settings.retentionMs, batchSize];
      const ids = (await script('cleanup', SCRIPTS.expired, [keys.settled], args)) as string[];
      if (ids.length === 0) return 0;
      return Number(await run('cleanup', SCRIPTS.cleanup, ids, [settings.retentionMs, ...ids]));
    },
  };
}
