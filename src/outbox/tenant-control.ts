import { callHook } from '../contract/call-hook.js';
import type { Verdict } from './classify.js';
import { OutboxDuplicateRiskError, OutboxEventStateError } from './errors.js';
import type { LocalQueue } from './local-queue.js';
import type { NormalizedOutboxOptions, OutboxSender } from './outbox-options.js';
import type { ClaimSource, EventPatch, StoredEvent, StoredTenantStop } from './store.js';
import type { Tenant } from './tenant-state.js';
import type { TenantStep } from './verdicts.js';

// The operator's side of the outbox (redeliver, discard, stop, resume): these move events back.

type Options = Pick<NormalizedOutboxOptions, 'hooks' | 'now'>;

export async function redeliver(
  store: ClaimSource,
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

export async function resumeTenant(
  store: ClaimSource,
  options: Options & { readonly shared: boolean },
  tenant: Tenant,
  client: OutboxSender | undefined,
): Promise<void> {
  // Without a client, forget the cached one: `clientFor` is asked again for fresh credentials.
  tenant.sender = client ? Promise.resolve(client) : undefined;
  const wasStopped = tenant.state === 'stopped';
  tenant.probeAt = 0;
  resume(tenant, options);
  // A shared store's stop may come from another process: clear it whatever this one knew.
  if (wasStopped || options.shared) await store.setTenantStop(tenant.tenantId, null);
}

/** The tenant delivers again: reported when it was paused or stopped. */
export function resume(tenant: Tenant, options: Options): void {
  if (tenant.state === 'active') return;
  tenant.setState('active', undefined, options.now());
  callHook(options.hooks.onTenantResumed, { tenantId: tenant.tenantId });
}

export async function stopTenant(
  store: ClaimSource,
  options: Options,
  tenant: Tenant,
  reason: string,
): Promise<void> {
  const since = options.now();
  tenant.setState('stopped', reason, since);
  callHook(options.hooks.onTenantStopped, { tenantId: tenant.tenantId, reason });
  await store.setTenantStop(tenant.tenantId, { tenantId: tenant.tenantId, reason, since });
}

type Answer = Verdict | { readonly kind: 'expire' };

/**
 * What the service told a tenant beyond the event. With no answer the tenant is offline: it sends
 * only its probe, once per `reconnectWindowMs` at a phase drawn when it went offline, so a fleet
 * that lost the network together comes back spread over the window. A pause or `Retry-After` is
 * kept in a local store for a restarted outbox (`restoreTenant`) until answered without one.
 */
export async function followService(
  local: LocalQueue | undefined,
  options: NormalizedOutboxOptions,
  tenant: Tenant,
  answer: Answer,
  step: TenantStep,
): Promise<void> {
  const monotonicNow = options.monotonic();
  const window = options.reconnectWindowMs;
  const answered = 'answered' in answer ? answer.answered : answer.kind === 'delivered';
  if (answer.kind === 'retry' && !answered && window > 0) {
    if (!tenant.probing) {
      tenant.probing = true;
      tenant.nextProbe = monotonicNow + options.retryDelayMs + Math.floor(Math.random() * window);
    } else if (tenant.nextProbe <= monotonicNow) {
      // The next point of its period: the phase drawn when it went offline is kept.
      tenant.nextProbe += Math.ceil((monotonicNow - tenant.nextProbe + 1) / window) * window;
    }
    local?.dueAt(tenant.tenantId, tenant.nextProbe);
  } else if (answered && tenant.probing) {
    tenant.probing = false;
    // The rest of its queue was due at the probe's time: it goes now.
    local?.dueAt(tenant.tenantId, undefined);
  }
  let waitMs: number | undefined;
  if (step.kind === 'pause' && tenant.state === 'paused')
    waitMs = Math.max(options.probeIntervalMs, step.waitMs ?? 0);
  else if (step.kind === 'resume' && step.waitMs !== undefined && tenant.state === 'active') {
    waitMs = step.waitMs;
    tenant.holdUntil = Math.max(tenant.holdUntil, monotonicNow + waitMs);
  }
  const store = local?.store;
  if (!store) return;
  const now = options.now();
  if (waitMs !== undefined && (step.kind === 'pause' || step.kind === 'resume')) {
    const wait: StoredTenantStop = {
      tenantId: tenant.tenantId,
      reason: step.code ?? 'RETRY_AFTER',
      since: now,
      until: now + waitMs,
      ...(step.kind === 'pause' ? { paused: true } : {}),
    };
    tenant.keptWait = true;
    await store.setTenantStop(tenant.tenantId, wait).catch(() => undefined);
  } else if (tenant.keptWait && tenant.state === 'active' && answered && tenant.holdUntil <= monotonicNow) {
    tenant.keptWait = false;
    await store.setTenantStop(tenant.tenantId, null).catch(() => undefined);
  }
}

/**
 * A tenant as the store left it: stopped, or waiting (paused until its next probe, or held by a
 * `Retry-After`) for what is left of the wait, measured on the wall clock across the restart.
 */
export function restoreTenant(
  tenant: Tenant,
  stop: StoredTenantStop,
  options: Pick<NormalizedOutboxOptions, 'now' | 'monotonic'>,
): void {
  if (stop.until === undefined) {
    tenant.setState('stopped', stop.reason, stop.since);
    return;
  }
  tenant.keptWait = true;
  const left = Math.max(0, stop.until - options.now());
  if (stop.paused) {
    tenant.setState('paused', stop.reason, stop.since);
    tenant.probeAt = options.monotonic() + left;
  } else tenant.holdUntil = options.monotonic() + left;
}
