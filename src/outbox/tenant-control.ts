import { callHook } from '../contract/call-hook.js';
import { OutboxDuplicateRiskError, OutboxEventStateError } from './errors.js';
import type { NormalizedOutboxOptions, OutboxSender } from './outbox-options.js';
import type { EventPatch, SharedStore, StoredEvent } from './store.js';
import type { Tenant } from './tenant-state.js';

/*
 * The operator's side of the outbox: decisions about single events (redeliver, discard) and
 * whole tenants (stop, resume). The scheduler only ever moves events forward; these move them
 * back. Each takes the store it writes to; the caller then asks the scheduler to look for work.
 */

type Options = Pick<NormalizedOutboxOptions, 'hooks' | 'now'>;

export async function redeliver(
  store: SharedStore<unknown>,
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
  await store.update(event.eventId, patch);
}

export async function discard(
  store: SharedStore<unknown>,
  event: StoredEvent,
  inFlight: boolean,
): Promise<void> {
  if (inFlight) throw new OutboxEventStateError(event.eventId, 'in-flight', 'discard');
  await store.remove([event.eventId]);
}

export async function resumeTenant(
  store: SharedStore<unknown>,
  options: Options & { readonly shared: boolean },
  tenant: Tenant,
  client: OutboxSender | undefined,
): Promise<void> {
  // Without a client, forget the cached one: `clientFor` is asked again for fresh credentials.
  tenant.sender = client ? Promise.resolve(client) : undefined;
  const wasStopped = tenant.state === 'stopped';
  tenant.probeAt = 0;
  if (tenant.state !== 'active') {
    tenant.setState('active', undefined, options.now());
    callHook(options.hooks.onTenantResumed, { tenantId: tenant.tenantId });
  }
  // A shared store's stop may come from another process: clear it whatever this one knew.
  if (wasStopped || options.shared) await store.setTenantStop(tenant.tenantId, null);
}

export async function stopTenant(
  store: SharedStore<unknown>,
  options: Options,
  tenant: Tenant,
  reason: string,
): Promise<void> {
  const since = options.now();
  tenant.setState('stopped', reason, since);
  callHook(options.hooks.onTenantStopped, { tenantId: tenant.tenantId, reason });
  await store.setTenantStop(tenant.tenantId, { tenantId: tenant.tenantId, reason, since });
}
