import { OutboxDuplicateRiskError, OutboxEventStateError } from './errors.js';
import { callHook } from './outbox-hooks.js';
import type { OutboxSender } from './outbox-options.js';
import type { OutboxContext } from './scheduler.js';
import type { EventPatch, StoredEvent } from './store.js';
import type { Tenant } from './tenant-state.js';

/*
 * The operator's side of the outbox: decisions about single events (redeliver, discard) and
 * whole tenants (stop, resume). The scheduler only ever moves events forward; these move them back.
 */

export async function redeliver(
  ctx: OutboxContext,
  event: StoredEvent,
  options: { acceptDuplicateRisk?: boolean },
): Promise<void> {
  if (event.state === 'pending') throw new OutboxEventStateError(event.eventId, 'pending', 'redeliver');
  if (event.state === 'expired' && options.acceptDuplicateRisk !== true) {
    throw new OutboxDuplicateRiskError(event.eventId);
  }
  // Accepting the risk opens a new window: the client may retry for 23 hours from now.
  const patch: EventPatch =
    event.state === 'expired' ? { state: 'pending', firstAttemptAt: null } : { state: 'pending' };
  ctx.failures.delete(event.eventId);
  await ctx.source.update(event.eventId, patch);
  ctx.pump();
}

export async function discard(ctx: OutboxContext, event: StoredEvent, inFlight: boolean): Promise<void> {
  if (inFlight) throw new OutboxEventStateError(event.eventId, 'in-flight', 'discard');
  await ctx.source.remove([event.eventId]);
  ctx.failures.delete(event.eventId);
  ctx.pump();
}

export async function resumeTenant(
  ctx: OutboxContext,
  tenant: Tenant,
  options: { client?: OutboxSender },
): Promise<void> {
  // Without a client, forget the cached one: `clientFor` is asked again for fresh credentials.
  tenant.sender = options.client ? Promise.resolve(options.client) : undefined;
  const wasStopped = tenant.state === 'stopped';
  tenant.probeAt = 0;
  if (tenant.state !== 'active') {
    tenant.setState('active', undefined, ctx.options.now());
    callHook(ctx.options.hooks, 'onTenantResumed', { tenantId: tenant.tenantId });
  }
  // A shared store's stop may come from another process: clear it whatever this one knew.
  if (wasStopped || !ctx.local) await ctx.source.setTenantStop(tenant.tenantId, null);
  ctx.pump();
}

export async function stopTenant(ctx: OutboxContext, tenant: Tenant, reason: string): Promise<void> {
  const since = ctx.options.now();
  tenant.setState('stopped', reason, since);
  callHook(ctx.options.hooks, 'onTenantStopped', { tenantId: tenant.tenantId, reason });
  await ctx.source.setTenantStop(tenant.tenantId, { tenantId: tenant.tenantId, reason, since });
}
