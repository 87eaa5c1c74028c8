import type { EventState } from '../../outbox/store.js';
import type { DeliveryState } from '../../webhooks/inbox.js';
import type { AuditEntry } from './audit.js';
import type { OpsBackends } from './connect.js';
import { inboxView, outboxView, type RecordRow, type StoreView } from './store-views.js';
import { TENANTS_SHOWN, type TenantRow } from './tenant-pages.js';

/** How many events of each state needing a person the page lists, and of the audit trail. */
const LISTED = 200;
const AUDITED = 50;
/** How much of a payload an outbox row shows: enough to recognise the sale, not a document. */
const PAYLOAD_PREVIEW = 240;

/** One store's part of the page: its busiest tenants, its totals, what needs a person. */
interface StoreOverview<S extends string> {
  readonly tenants: readonly TenantRow<S>[];
  /** How many tenants hold events in all; `tenants` holds the busiest of them only. */
  readonly totalTenants: number | null;
  readonly totals: Readonly<Record<S, number>>;
  /** Dead, parked or expired ones. */
  readonly attention: readonly RecordRow[];
}

/** What the dashboard's JSON endpoint answers; the page renders it as text, never as HTML. */
export interface Overview {
  readonly source: string;
  readonly allowActions: boolean;
  readonly now: number;
  readonly outbox?: StoreOverview<EventState>;
  /** Handled deliveries are counted in `totals` only. */
  readonly inbox?: StoreOverview<DeliveryState> & { readonly oldestPendingAt: number | null };
  readonly audit: readonly (AuditEntry & { store: 'outbox' | 'inbox' })[];
}

async function storeOverview<S extends string, R>(
  view: StoreView<S, R>,
  states: readonly NoInfer<S>[],
  tenantId: string | undefined,
  row: (record: R) => RecordRow = view.row,
): Promise<StoreOverview<S>> {
  const attention: RecordRow[] = [];
  for (const state of states)
    for (const record of await view.list(state, { limit: LISTED, tenantId })) attention.push(row(record));
  const page = await view.tenants({ limit: TENANTS_SHOWN, tenantId });
  return {
    tenants: page?.tenants ?? [],
    totalTenants: page?.totalTenants ?? null,
    totals: await view.totals(),
    attention,
  };
}

/** Everything the page shows, in a few bounded queries: it stays kilobytes whatever the store holds. */
export async function readOverview(
  backends: OpsBackends,
  allowActions: boolean,
  tenantId?: string,
): Promise<Overview> {
  const audit: (AuditEntry & { store: 'outbox' | 'inbox' })[] = [];
  let outbox: Overview['outbox'];
  let inbox: Overview['inbox'];
  if (backends.outbox) {
    const view = outboxView(backends.outbox);
    outbox = await storeOverview(view, ['dead', 'parked', 'expired'], tenantId, (event) => ({
      ...view.row(event),
      // A row written by hand may lack a payload: the page shows it empty rather than failing.
      payload: (JSON.stringify(event.envelope.payload) ?? '').slice(0, PAYLOAD_PREVIEW),
    }));
    for (const entry of await backends.outbox.audit.recent(AUDITED))
      audit.push({ ...entry, store: 'outbox' });
  }
  if (backends.inbox) {
    const view = inboxView(backends.inbox);
    const [oldest] = await view.list('pending', { limit: 1, tenantId: undefined });
    inbox = {
      ...(await storeOverview(view, ['dead', 'parked'], tenantId)),
      oldestPendingAt: oldest?.receivedAt.getTime() ?? null,
    };
    // One Postgres database holds one trail: do not list it twice.
    if (backends.inbox.audit !== backends.outbox?.audit)
      for (const entry of await backends.inbox.audit.recent(AUDITED))
        audit.push({ ...entry, store: 'inbox' });
  }
  audit.sort((a, b) => b.at - a.at);
  return {
    source: backends.label,
    allowActions,
    now: Date.now(),
    ...(outbox && { outbox }),
    ...(inbox && { inbox }),
    audit: audit.slice(0, AUDITED),
  };
}
