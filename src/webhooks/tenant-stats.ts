import type { TenantStats, TenantStatsQuery } from './inbox.js';

/** How many of one tenant's records are in one state, and when the oldest was received. */
export interface TenantStateCount {
  readonly tenantId: string;
  readonly state: 'pending' | 'dead' | 'parked';
  readonly n: number;
  /** Epoch ms. */
  readonly oldest: number;
}

/** How many tenants `statsByTenant` answers when the query does not say. */
export const TENANT_STATS_LIMIT = 50;

/** Busiest first: most pending + dead + parked, then the oldest pending one, then by id. */
export function busiestFirst(a: TenantStats, b: TenantStats): number {
  const total = (t: TenantStats) => (t.states.pending ?? 0) + (t.states.dead ?? 0) + (t.states.parked ?? 0);
  const oldest = (t: TenantStats) => t.oldestPendingAt ?? Number.POSITIVE_INFINITY;
  return (
    total(b) - total(a) ||
    oldest(a) - oldest(b) ||
    (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0)
  );
}

/**
 * What `statsByTenant` answers, from counts per tenant and state (a store's grouped query, its
 * script's answer, or one count per record held in memory): one line per tenant, the busiest
 * `limit` first (or the one tenant asked for), and how many tenants there are in all.
 */
export function foldTenantStats(
  counts: Iterable<TenantStateCount>,
  query: TenantStatsQuery = {},
): { tenants: TenantStats[]; totalTenants: number } {
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
  const all = [...tenants.values()].sort(busiestFirst);
  return { tenants: all.slice(0, query.limit ?? TENANT_STATS_LIMIT), totalTenants: all.length };
}
