import type { EventState, StoredEvent } from '../../outbox/store.js';
import type { DeliveryRecord, DeliveryState } from '../../webhooks/inbox.js';
import type { OpsBackends } from './connect.js';
import { outboxTenants, type TenantPage, type TenantQuery } from './tenant-pages.js';

/** One stored event or delivery as the operator's table and page show it. */
export interface RecordRow {
  readonly eventId: string;
  readonly tenantId: string;
  readonly eventType: string;
  readonly state: string;
  readonly attempts: number;
  /** Enqueued (outbox) or received (inbox), Unix ms. */
  readonly since: number;
  readonly lastError: string;
  /** The start of the payload's JSON (the dashboard's outbox rows only; an inbox lists no bodies). */
  readonly payload?: string;
}

/** One store as the operator's command and page read it. */
export interface StoreView<S extends string, R> {
  list(state: S, query: { tenantId: string | undefined; limit: number }): Promise<readonly R[]>;
  totals(): Promise<Readonly<Record<S, number>>>;
  tenants(query: TenantQuery): Promise<TenantPage<S> | undefined>;
  row(record: R): RecordRow;
  /** What `list --json` prints of a record (never a payload or body). */
  json(record: R): unknown;
}

/** The outbox's events, on Postgres or in a file outbox. */
export function outboxView(outbox: NonNullable<OpsBackends['outbox']>): StoreView<EventState, StoredEvent> {
  return {
    list: (state, query) => outbox.store.list(state, query),
    totals: () => outbox.store.counts(),
    tenants: (query) => outboxTenants(outbox, query),
    row: (event) => ({
      eventId: event.eventId,
      tenantId: event.tenantId,
      eventType: event.envelope.eventType,
      state: event.state,
      attempts: event.attempts,
      since: event.enqueuedAt,
      lastError: event.lastError ? `${event.lastError.code}: ${event.lastError.message}` : '',
    }),
    json: (event) => ({
      eventId: event.eventId,
      tenantId: event.tenantId,
      eventType: event.envelope.eventType,
      state: event.state,
      attempts: event.attempts,
      enqueuedAt: new Date(event.enqueuedAt).toISOString(),
      lastError: event.lastError,
    }),
  };
}

/** A deferred inbox's deliveries, in Postgres or Redis. */
export function inboxView(
  inbox: NonNullable<OpsBackends['inbox']>,
): StoreView<DeliveryState, DeliveryRecord> {
  const { store } = inbox;
  return {
    list: (state, query) => store.list({ state, ...query }),
    totals: () => store.stats(),
    // The store pages its tenants itself; `undefined`: it counts no tenants.
    tenants: async (query) => store.statsByTenant?.(query),
    row: (record) => ({
      eventId: record.eventId,
      tenantId: record.tenantId,
      eventType: record.eventType,
      state: record.state,
      attempts: record.attempts,
      since: record.receivedAt.getTime(),
      lastError: record.lastError ?? '',
    }),
    json: (record) => record,
  };
}
