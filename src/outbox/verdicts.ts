import type { Verdict } from './classify.js';
import type { OutboxContext } from './dispatcher.js';
import { callHook } from './outbox-hooks.js';
import type { StoredEvent } from './store.js';
import type { TenantQueue } from './tenant-queue.js';

/**
 * Carries out what one attempt decided: the event's new state (in memory, then journalled), the
 * tenant's next step and the hook. A journal write that fails here is not fatal: the journal then
 * holds an earlier state, and replaying from it only repeats an attempt the service dedups.
 */
export async function applyVerdict(
  ctx: OutboxContext,
  tenant: TenantQueue,
  event: StoredEvent,
  verdict: Verdict | { readonly kind: 'expire' },
  attempts: number,
): Promise<void> {
  const { options } = ctx;
  const { hooks } = options;
  const now = options.now();
  const total = event.attempts + attempts;
  const settle = (next: StoredEvent['state'], answered: boolean, failure: StoredEvent['lastError']) => {
    tenant.remove(event.eventId);
    tenant.failures = 0;
    tenant.nextAt = 0;
    // A 400 answer proves the event was not credited (a credited eventId gets its cached answer
    // replayed), so a later redelivery starts a fresh dedup window.
    const firstAttemptAt = answered ? null : event.firstAttemptAt;
    return ctx
      .patch(event, { state: next, attempts: total, lastError: failure, firstAttemptAt })
      .catch(ignore);
  };

  switch (verdict.kind) {
    case 'aborted':
      return;
    case 'expire': {
      const expired = await settle('expired', false, event.lastError);
      callHook(hooks, 'onExpired', { event: expired ?? event });
      return;
    }
    case 'delivered': {
      tenant.remove(event.eventId);
      ctx.entries.delete(event.eventId);
      tenant.failures = 0;
      tenant.nextAt = 0;
      resumeIfPaused(ctx, tenant, now);
      await options.store.remove([event.eventId]).catch(ignore);
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
      const settled =
        (await settle(verdict.kind === 'park' ? 'parked' : 'dead', verdict.answered, verdict.failure)) ??
        event;
      const info = { event: settled, code: verdict.failure.code, message: verdict.failure.message };
      callHook(hooks, verdict.kind === 'park' ? 'onParked' : 'onDead', info);
      return;
    }
    case 'retry': {
      tenant.failures += 1;
      let delayMs = backoff(options.retryDelayMs, options.maxRetryDelayMs, tenant.failures);
      // No answer says nothing about a pause: keep probing slowly. Any answer means it is over.
      if (tenant.state === 'paused' && !verdict.answered) delayMs = options.probeIntervalMs;
      else resumeIfPaused(ctx, tenant, now);
      tenant.nextAt = now + delayMs;
      const updated =
        (await ctx.patch(event, { attempts: total, lastError: verdict.failure }).catch(ignore)) ?? event;
      callHook(hooks, 'onRetry', {
        event: updated,
        code: verdict.failure.code,
        message: verdict.failure.message,
        delayMs,
      });
      return;
    }
    case 'pause-tenant': {
      tenant.nextAt = now + options.probeIntervalMs;
      await ctx.patch(event, { attempts: total, lastError: verdict.failure }).catch(ignore);
      if (tenant.state === 'active') {
        tenant.setState('paused', verdict.failure.code, now);
        callHook(hooks, 'onTenantPaused', { tenantId: tenant.tenantId, code: verdict.failure.code });
      }
      return;
    }
    case 'stop-tenant': {
      await ctx.patch(event, { attempts: total, lastError: verdict.failure }).catch(ignore);
      if (tenant.state !== 'stopped') await ctx.stopTenant(tenant, verdict.failure.code);
      return;
    }
  }
}

function resumeIfPaused(ctx: OutboxContext, tenant: TenantQueue, now: number): void {
  if (tenant.state !== 'paused') return;
  tenant.setState('active', undefined, now);
  callHook(ctx.options.hooks, 'onTenantResumed', { tenantId: tenant.tenantId });
}

/** Exponential with jitter in the upper half, so tenants failing together do not retry together. */
function backoff(baseMs: number, maxMs: number, failures: number): number {
  const cap = Math.min(maxMs, baseMs * 2 ** Math.min(failures - 1, 30));
  return Math.round(cap / 2 + (Math.random() * cap) / 2);
}

function ignore(): undefined {
  return undefined;
}
