import type { DeferredInboxStore } from './inbox.js';

type TenantStats = Awaited<ReturnType<NonNullable<DeferredInboxStore['statsByTenant']>>>;
type TenantQuery = Parameters<NonNullable<DeferredInboxStore['statsByTenant']>>[0];

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
 * its script's answer, or one count per delivery held in memory): what `statsByTenant` answers,
 * the busiest first (most pending, dead and parked; then the oldest pending; then by id).
 */
export function foldTenantStats(counts: Iterable<TenantStateCount>, query: TenantQuery = {}): TenantStats {
  const tenants = new Map<
    string,
    {
      tenantId: string;
      states: Partial<Record<TenantStateCount['state'], number>>;
      oldestPendingAt: number | null;
    }
  >();
  for (const { tenantId, state, n, oldest } of counts) {
    if (query.tenantId !== undefined && tenantId !== query.tenantId) continue;
    let tenant = tenants.get(tenantId);
    if (!tenant) {
      tenant = { tenantId, states: {}, oldestPendingAt: null };
      tenants.set(tenantId, tenant);
    }
    tenant.states[state] = (tenant.states[state] ?? 0) + n;
    if (state === 'pending') tenant.oldestPendingAt = Math.min(tenant.oldestPendingAt ?? oldest, oldest);
  }
  const total = (t: { states: Partial<Record<string, number>> }) =>
    (t.states.pending ?? 0) + (t.states.dead ?? 0) + (t.states.parked ?? 0);
  const sorted = [...tenants.values()].sort(
    (a, b) =>
      total(b) - total(a) ||
      (a.oldestPendingAt ?? Number.POSITIVE_INFINITY) - (b.oldestPendingAt ?? Number.POSITIVE_INFINITY) ||
      (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0),
  );
  return { tenants: sorted.slice(0, query.limit ?? 50), totalTenants: sorted.length };
}
