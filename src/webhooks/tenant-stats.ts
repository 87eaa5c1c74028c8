import type { DeferredInboxStore } from './inbox.js';

type TenantStats = Awaited<ReturnType<NonNullable<DeferredInboxStore['statsByTenant']>>>;

/** How many of one tenant's deliveries are in one state, and when the oldest was received. */
export interface TenantStateCount {
  readonly tenantId: string;
  readonly state: 'pending' | 'dead' | 'parked';
  readonly n: number;
  /** Epoch ms. */
  readonly oldest: number;
}

/**
 * One line per tenant, by tenant id, from counts per tenant and state (a store's grouped query,
 * its script's answer, or one count per delivery held in memory): what `statsByTenant` answers.
 */
export function foldTenantStats(counts: Iterable<TenantStateCount>): TenantStats {
  const tenants = new Map<
    string,
    {
      tenantId: string;
      states: Partial<Record<TenantStateCount['state'], number>>;
      oldestPendingAt: number | null;
    }
  >();
  for (const { tenantId, state, n, oldest } of counts) {
    let tenant = tenants.get(tenantId);
    if (!tenant) {
      tenant = { tenantId, states: {}, oldestPendingAt: null };
      tenants.set(tenantId, tenant);
    }
    tenant.states[state] = (tenant.states[state] ?? 0) + n;
    if (state === 'pending') tenant.oldestPendingAt = Math.min(tenant.oldestPendingAt ?? oldest, oldest);
  }
  return [...tenants.values()].sort((a, b) =>
    a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0,
  );
}
