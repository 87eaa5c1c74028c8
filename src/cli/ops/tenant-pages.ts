import type { EventState } from '../../outbox/store.js';
import type { PgQuery } from './audit.js';
import type { OpsBackends } from './connect.js';

/** How many tenants `inbox stats`, `outbox stats` and the dashboard show by default: the busiest. */
export const TENANTS_SHOWN = 50;

/** Which tenants to show: the busiest `limit`, or the one named. */
export interface TenantQuery {
  readonly limit: number;
  readonly tenantId?: string | undefined;
}

/** One tenant's counts per state, and when its oldest pending event arrived (Unix ms). */
export interface TenantRow<S extends string> {
  readonly tenantId: string;
  readonly states: Partial<Record<S, number>>;
  readonly oldestPendingAt: number | null;
}

export interface TenantPage<S extends string> {
  readonly tenants: readonly TenantRow<S>[];
  readonly totalTenants: number;
}

/** Busiest first (most events, then the oldest pending one), then by id: stable across refreshes. */
function busiestFirst<S extends string>(rows: readonly TenantRow<S>[], query: TenantQuery): TenantPage<S> {
  const load = (row: TenantRow<S>) =>
    Object.values<number | undefined>(row.states).reduce<number>((a, n) => a + (n ?? 0), 0);
  const selected = rows.filter((row) => query.tenantId === undefined || row.tenantId === query.tenantId);
  const sorted = [...selected].sort(
    (a, b) =>
      load(b) - load(a) ||
      (a.oldestPendingAt ?? Number.POSITIVE_INFINITY) - (b.oldestPendingAt ?? Number.POSITIVE_INFINITY) ||
      (a.tenantId < b.tenantId ? -1 : a.tenantId > b.tenantId ? 1 : 0),
  );
  return { tenants: sorted.slice(0, query.limit), totalTenants: selected.length };
}

/** Every `EventState`, in the order the tables show them. */
export const OUTBOX_STATES: readonly EventState[] = ['pending', 'parked', 'dead', 'expired'];

/**
 * The outbox's tenants, busiest first: on Postgres `limit` rows and the total in one query (every
 * tenant was megabytes per refresh at 100,000); a file outbox, small by design, in memory.
 */
export async function outboxTenants(
  outbox: NonNullable<OpsBackends['outbox']>,
  query: TenantQuery,
): Promise<TenantPage<EventState> | undefined> {
  if (outbox.sql) return pagedOutboxTenants(outbox.sql.pool, outbox.sql.quotedSchema, query);
  if (!outbox.store.countsByTenant) return undefined;
  return busiestFirst(await outbox.store.countsByTenant(), query);
}

async function pagedOutboxTenants(
  pool: PgQuery,
  quotedSchema: string,
  query: TenantQuery,
): Promise<TenantPage<EventState>> {
  const { rows } = await pool.query<
    Record<EventState, number> & { tenant_id: string; oldest: string | null; total: number }
  >(
    `WITH t AS (
  SELECT tenant_id,
    count(*) FILTER (WHERE state = 'pending')::integer AS pending,
    count(*) FILTER (WHERE state = 'parked')::integer AS parked,
    count(*) FILTER (WHERE state = 'dead')::integer AS dead,
    count(*) FILTER (WHERE state = 'expired')::integer AS expired,
    min(enqueued_at) FILTER (WHERE state = 'pending') AS oldest
  FROM ${quotedSchema}.outbox
  WHERE state <> 'delivered' AND ($2::text IS NULL OR tenant_id = $2)
  GROUP BY tenant_id
)
SELECT t.*, (SELECT count(*) FROM t)::integer AS total FROM t
ORDER BY pending + parked + dead + expired DESC, oldest ASC NULLS LAST, tenant_id
LIMIT $1`,
    [query.limit, query.tenantId ?? null],
  );
  return {
    tenants: rows.map((row) => ({
      tenantId: row.tenant_id,
      states: Object.fromEntries(OUTBOX_STATES.filter((s) => row[s] > 0).map((s) => [s, row[s]])),
      oldestPendingAt: row.oldest === null ? null : Number(row.oldest),
    })),
    totalTenants: rows[0]?.total ?? 0,
  };
}

/** `50 of 100,000 tenants shown, busiest first (--limit <n>, --tenant <id>)`. */
export function tenantFooter(page: { readonly totalTenants: number }, shown: number): string {
  const all = page.totalTenants.toLocaleString('en-US');
  return shown < page.totalTenants
    ? `${shown.toLocaleString('en-US')} of ${all} tenants shown, busiest first (--limit <n>, --tenant <id>)`
    : `${all} ${page.totalTenants === 1 ? 'tenant' : 'tenants'}`;
}
