import type { EventState } from '../../outbox/store.js';
import type { DeliveryState } from '../../webhooks/inbox.js';
import type { AuditEntry } from './audit.js';
import type { OpsBackends } from './connect.js';
import { outboxTenants, TENANTS_SHOWN, type TenantRow } from './tenant-pages.js';

/** How many events of each state needing a person the page lists, and of the audit trail. */
const LISTED = 200;
const AUDITED = 50;
/** How much of a payload an outbox row shows: enough to recognise the sale, not a document. */
const PAYLOAD_PREVIEW = 240;

/** One event a person may have to act on: dead, parked or expired. */
export interface AttentionRow {
  readonly eventId: string;
  readonly tenantId: string;
  readonly eventType: string;
  readonly state: string;
  readonly attempts: number;
  /** Enqueued (outbox) or received (inbox), Unix ms. */
  readonly since: number;
  readonly lastError: string;
  /** The start of the payload's JSON (outbox only; an inbox lists no bodies). */
  readonly payload?: string;
}

/** What the dashboard's JSON endpoint answers; the page renders it as text, never as HTML. */
export interface Overview {
  readonly source: string;
  readonly allowActions: boolean;
  readonly now: number;
  readonly outbox?: {
    readonly tenants: readonly TenantRow<EventState>[];
    /** How many tenants hold events in all; `tenants` holds the busiest of them only. */
    readonly totalTenants: number | null;
    readonly totals: Readonly<Record<EventState, number>>;
    readonly attention: readonly AttentionRow[];
  };
  readonly inbox?: {
    /** Handled deliveries are counted in `totals` only. */
    readonly tenants: readonly TenantRow<'pending' | 'dead' | 'parked'>[];
    readonly totalTenants: number | null;
    readonly totals: Readonly<Record<DeliveryState, number>>;
    readonly oldestPendingAt: number | null;
    readonly attention: readonly AttentionRow[];
  };
  readonly audit: readonly (AuditEntry & { store: 'outbox' | 'inbox' })[];
}

/**
 * Reads everything the page shows, in a handful of queries, each bounded: the busiest
 * `TENANTS_SHOWN` tenants (or the one `tenantId` names) with the number in all, 200 events per
 * state needing a person, 50 audit entries. The page stays kilobytes whatever the store holds.
 */
export async function readOverview(
  backends: OpsBackends,
  allowActions: boolean,
  tenantId?: string,
): Promise<Overview> {
  const query = { limit: TENANTS_SHOWN, tenantId };
  const audit: (AuditEntry & { store: 'outbox' | 'inbox' })[] = [];
  let outbox: Overview['outbox'];
  let inbox: Overview['inbox'];
  if (backends.outbox) {
    const { store } = backends.outbox;
    const attention: AttentionRow[] = [];
    for (const state of ['dead', 'parked', 'expired'] as const)
      for (const event of await store.list(state, { limit: LISTED, tenantId }))
        attention.push({
          eventId: event.eventId,
          tenantId: event.tenantId,
          eventType: event.envelope.eventType,
          state: event.state,
          attempts: event.attempts,
          since: event.enqueuedAt,
          lastError: event.lastError ? `${event.lastError.code}: ${event.lastError.message}` : '',
          // A row written by hand may lack a payload: the page shows it empty rather than failing.
          payload: (JSON.stringify(event.envelope.payload) ?? '').slice(0, PAYLOAD_PREVIEW),
        });
    const page = await outboxTenants(backends.outbox, query);
    outbox = {
      tenants: page?.tenants ?? [],
      totalTenants: page?.totalTenants ?? null,
      totals: await store.counts(),
      attention,
    };
    for (const entry of await backends.outbox.audit.recent(AUDITED))
      audit.push({ ...entry, store: 'outbox' });
  }
  if (backends.inbox) {
    const { store } = backends.inbox;
    const attention: AttentionRow[] = [];
    for (const state of ['dead', 'parked'] as const)
      for (const record of await store.list({ state, limit: LISTED, tenantId }))
        attention.push({
          eventId: record.eventId,
          tenantId: record.tenantId,
          eventType: record.eventType,
          state: record.state,
          attempts: record.attempts,
          since: record.receivedAt.getTime(),
          lastError: record.lastError ?? '',
        });
    const [oldest] = await store.list({ state: 'pending', limit: 1 });
    // The store pages its tenants itself; `undefined`: it counts no tenants.
    const page = await store.statsByTenant?.(query);
    inbox = {
      tenants: page?.tenants ?? [],
      totalTenants: page?.totalTenants ?? null,
      totals: await store.stats(),
      oldestPendingAt: oldest?.receivedAt.getTime() ?? null,
      attention,
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
