import type { DeferredInboxStore, DeliveryRecord, DeliveryState } from '../webhooks/inbox.js';
import { foldTenantStats, type TenantStateCount } from '../webhooks/tenant-stats.js';
import type { RedisCommand } from './client.js';
import { toRedisError } from './errors.js';
import { SCRIPTS } from './inbox-scripts.js';

type DeferredPart = Omit<DeferredInboxStore, 'begin' | 'complete' | 'release' | 'transaction' | 'extend'>;

const STATES: readonly DeliveryState[] = ['pending', 'handled', 'dead', 'parked'];

/**
 * The deferred half of `redisInbox()`: stored deliveries as hashes, claimed and settled by Lua
 * scripts (see inbox-scripts.ts). No `runHandled`: the handler's effects are not part of the
 * claim, so one that crashes after writing and before `markHandled` runs again.
 */
export function redisDeliveries(
  command: RedisCommand,
  settings: { prefix: string; leaseMs: number; retentionMs: number },
): DeferredPart {
  const P = `${settings.prefix}dlv:`;
  const { leaseMs } = settings;
  const run = async (what: string, script: string, args: (string | number)[]): Promise<unknown> => {
    try {
      return await command(['EVAL', script, '0', P, ...args.map(String)]);
    } catch (err) {
      throw toRedisError(err, `redisInbox ${what}`);
    }
  };
  const settle = async (
    what: string,
    claim: { eventId: string; owner: string; attempt: number },
    outcome: 'handled' | 'retry' | 'dead' | 'parked',
    error = '',
    retryInMs = 0,
  ) =>
    (await run(what, SCRIPTS.settle, [
      claim.eventId,
      claim.owner,
      claim.attempt,
      outcome,
      error,
      retryInMs,
    ])) === 1;

  return {
    leaseMs,
    async store(d, state, reason) {
      const args = [d.eventId, d.eventType, d.tenantId, d.rawBody, d.correlationId, d.signatureTimestamp];
      args.push(d.secretIndex, d.receivedAt, state, reason ?? '');
      return (await run('store', SCRIPTS.store, args)) === 1 ? 'stored' : 'duplicate';
    },
    async claimDue(owner, limit) {
      const flat = (await run('claimDue', SCRIPTS.claimDue, [owner, limit, leaseMs])) as string[];
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
      return (await run('extendLease', SCRIPTS.extendLease, [owner, leaseMs, ...eventIds])) as string[];
    },
    markHandled: (claim) => settle('markHandled', claim, 'handled'),
    markFailed: (claim, failure) =>
      failure.retryInMs === undefined
        ? settle('markFailed', claim, 'dead', failure.error)
        : settle('markFailed', claim, 'retry', failure.error, failure.retryInMs),
    markParked: (claim, reason) => settle('markParked', claim, 'parked', reason),
    async stats() {
      const counts = {} as Record<DeliveryState, number>;
      for (const state of STATES) {
        try {
          counts[state] = Number(await command(['ZCARD', `${P}s:${state}`]));
        } catch (err) {
          throw toRedisError(err, 'redisInbox stats');
        }
      }
      return counts;
    },
    async statsByTenant() {
      const flat = (await run('statsByTenant', SCRIPTS.statsByTenant, [])) as string[];
      const counts: TenantStateCount[] = [];
      for (let i = 0; i < flat.length; i += 4) {
        const [tenantId, state, n, oldest] = flat.slice(i, i + 4) as string[];
        counts.push({
          tenantId: tenantId!,
          state: state as TenantStateCount['state'],
          n: Number(n),
          oldest: Number(oldest),
        });
      }
      return foldTenantStats(counts);
    },
    async list({ state, tenantId, limit = 100 }) {
      const flat = (await run('list', SCRIPTS.list, [state, tenantId ?? '', limit])) as string[];
      const records: DeliveryRecord[] = [];
      for (let i = 0; i < flat.length; i += 8) {
        const [eventId, eventType, tenant, attempts, lastError, received, nextAt, settledAt] = flat.slice(
          i,
          i + 8,
        ) as string[];
        records.push({
          eventId: eventId!,
          eventType: eventType!,
          tenantId: tenant!,
          state,
          attempts: Number(attempts),
          lastError: lastError || undefined,
          receivedAt: new Date(Number(received)),
          nextAttemptAt: state === 'pending' ? new Date(Number(nextAt)) : undefined,
          settledAt: settledAt ? new Date(Number(settledAt)) : undefined,
        });
      }
      return records;
    },
    replay: async (eventId) => (await run('replay', SCRIPTS.replay, [eventId])) === 1,
    discard: async (eventId) => (await run('discard', SCRIPTS.discard, [eventId])) === 1,
    cleanup: async (batchSize) =>
      Number(await run('cleanup', SCRIPTS.cleanup, [settings.retentionMs, batchSize])),
  };
}
