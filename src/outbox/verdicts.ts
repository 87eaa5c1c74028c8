import { backoffDelay } from '../client/backoff.js';
import type { Verdict } from './classify.js';
import { callHook } from './outbox-hooks.js';
import type { OutboxContext } from './scheduler.js';
import type { StoredEvent } from './store.js';
import type { Tenant } from './tenant-state.js';

/**
 * Carries out what one attempt decided: the event's outcome (recorded with the other answers
 * that arrived together), the tenant's next step and the hook. A failed write is not fatal: the
 * store then holds an earlier state, and replaying it only repeats an attempt the service dedups.
 */
export async function applyVerdict(
  ctx: OutboxContext,
  tenant: Tenant,
  event: StoredEvent,
  verdict: Verdict | { readonly kind: 'expire' },
  attempts: number,
): Promise<void> {
  const { options } = ctx;
  const { hooks } = options;
  const now = options.now();
  const total = event.attempts + attempts;
  const { eventId } = event;
  const settle = async (
    state: 'parked' | 'dead' | 'expired',
    answered: boolean,
    failure: StoredEvent['lastError'],
  ) => {
    ctx.failures.delete(eventId);
    // A 400 answer proves the event was not credited (a credited eventId gets its cached answer
    // replayed), so a later redelivery starts a fresh dedup window.
    const patch = {
      state,
      attempts: total,
      lastError: failure,
      firstAttemptAt: answered ? null : event.firstAttemptAt,
    };
    await ctx.record({ kind: 'settle', eventId, patch }).catch(ignore);
    return { ...event, ...patch };
  };
  // Kept pending: due again after `retryAfterMs` (a paused or stopped tenant is not claimed).
  const keep = async (failure: StoredEvent['lastError'], retryAfterMs: number) => {
    const patch = { attempts: total, lastError: failure };
    await ctx.record({ kind: 'retry', eventId, patch, retryAfterMs }).catch(ignore);
    return { ...event, ...patch };
  };

  switch (verdict.kind) {
    case 'aborted':
      // Sent or not, the answer is unknown: it stays pending, with its eventId, for the next try.
      await ctx.record({ kind: 'release', eventId }).catch(ignore);
      return;
    case 'expire': {
      const expired = await settle('expired', false, event.lastError);
      callHook(hooks, 'onExpired', { event: expired });
      return;
    }
    case 'delivered': {
      ctx.failures.delete(eventId);
      resumeIfPaused(ctx, tenant, now);
      await ctx.record({ kind: 'delivered', eventId }).catch(ignore);
      ctx.counters.delivered += 1;
      const { status, correlationId, alreadyCredited } = verdict;
      callHook(hooks, 'onDelivered', {
        event: { ...event, attempts: total },
        status,
        correlationId,
        attempts: total,
        alreadyCredited,
      });
      return;
    }
    case 'park':
    case 'dead': {
      resumeIfPaused(ctx, tenant, now);
      const settled = await settle(
        verdict.kind === 'park' ? 'parked' : 'dead',
        verdict.answered,
        verdict.failure,
      );
      const info = { event: settled, code: verdict.failure.code, message: verdict.failure.message };
      callHook(hooks, verdict.kind === 'park' ? 'onParked' : 'onDead', info);
      return;
    }
    case 'retry': {
      const failures = (ctx.failures.get(eventId) ?? 0) + 1;
      ctx.failures.set(eventId, failures);
      // At least `retryDelayMs`, plus the client's full-jitter backoff on top: never a busy loop.
      const { retryDelayMs: base, maxRetryDelayMs: max } = options;
      let delayMs = base + backoffDelay(failures, { baseDelayMs: base, maxDelayMs: Math.max(0, max - base) });
      // No answer says nothing about a pause: keep probing slowly. Any answer means it is over.
      if (tenant.state === 'paused' && !verdict.answered) delayMs = options.probeIntervalMs;
      else resumeIfPaused(ctx, tenant, now);
      const updated = await keep(verdict.failure, delayMs);
      callHook(hooks, 'onRetry', {
        event: updated,
        code: verdict.failure.code,
        message: verdict.failure.message,
        delayMs,
      });
      return;
    }
    case 'pause-tenant': {
      // The tenant's other events in flight get their own answers; none is sent again until a
      // probe says the pause is over.
      if (tenant.state === 'active') {
        tenant.setState('paused', verdict.failure.code, now);
        tenant.probeAt = options.monotonic() + options.probeIntervalMs;
        callHook(hooks, 'onTenantPaused', { tenantId: tenant.tenantId, code: verdict.failure.code });
      } else if (tenant.state === 'paused') {
        tenant.probeAt = options.monotonic() + options.probeIntervalMs;
      }
      await keep(verdict.failure, 0);
      return;
    }
    case 'stop-tenant': {
      if (tenant.state !== 'stopped') await ctx.stopTenant(tenant, verdict.failure.code).catch(ignore);
      await keep(verdict.failure, 0);
      return;
    }
  }
}

function resumeIfPaused(ctx: OutboxContext, tenant: Tenant, now: number): void {
  if (tenant.state !== 'paused') return;
  tenant.setState('active', undefined, now);
  callHook(ctx.options.hooks, 'onTenantResumed', { tenantId: tenant.tenantId });
}

function ignore(): undefined {
  return undefined;
}
