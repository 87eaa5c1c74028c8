import { appendFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OutboxLockedError } from '../../outbox/errors.js';
import { fileStore } from '../../outbox/file-store.js';
import type { EventState, StoredEvent } from '../../outbox/store.js';
import type { AuditEntry, AuditTrail } from './audit.js';
import { type OpsOutboxStore, StoreUnavailable } from './ops-stores.js';

/** The audit trail of a file outbox: one JSON line per action, beside the journal. */
const AUDIT_FILE = 'audit.jsonl';

/**
 * A file outbox opened by the CLI while no POS process holds it: its lock allows one process at
 * a time, so a running outbox's directory is refused with the pid that holds it (act from that
 * process with `outbox.list`, `redeliver`, `discard`). Changes are written to the journal as the
 * outbox itself writes them, and seen by the next `outbox.start()`.
 */
export async function openFileOutbox(
  dir: string,
): Promise<{ store: OpsOutboxStore; audit: AuditTrail; close(): Promise<void> }> {
  const store = fileStore(dir);
  let events: Map<string, StoredEvent>;
  try {
    events = new Map((await store.open()).events.map((event) => [event.eventId, event]));
  } catch (err) {
    if (err instanceof OutboxLockedError)
      throw new StoreUnavailable(
        `${err.message}: a file outbox is opened by one process at a time; stop it first, or act from it (outbox.list, redeliver, discard)`,
      );
    throw err;
  }
  const ordered = () => [...events.values()].sort((a, b) => a.seq - b.seq);
  const view: OpsOutboxStore = {
    get: async (eventId) => events.get(eventId),
    list: async (state, filter = {}) =>
      ordered()
        .filter((e) => e.state === state && (filter.tenantId === undefined || e.tenantId === filter.tenantId))
        .slice(0, filter.limit ?? 1000),
    counts: async () => {
      const counts: Record<EventState, number> = { pending: 0, parked: 0, dead: 0, expired: 0 };
      for (const event of events.values()) counts[event.state] += 1;
      return counts;
    },
    countsByTenant: async () => {
      const tenants = new Map<
        string,
        { tenantId: string; states: Partial<Record<EventState, number>>; oldestPendingAt: number | null }
      >();
      for (const event of ordered()) {
        const tenant = tenants.get(event.tenantId) ?? {
          tenantId: event.tenantId,
          states: {},
          oldestPendingAt: null,
        };
        tenants.set(event.tenantId, tenant);
        tenant.states[event.state] = (tenant.states[event.state] ?? 0) + 1;
        if (event.state === 'pending')
          tenant.oldestPendingAt = Math.min(tenant.oldestPendingAt ?? Infinity, event.enqueuedAt);
      }
      return [...tenants.values()].sort((a, b) => a.tenantId.localeCompare(b.tenantId));
    },
    update: async (eventId, patch) => {
      const event = events.get(eventId);
      if (!event) return;
      await store.update(eventId, patch);
      events.set(eventId, { ...event, ...patch });
    },
    remove: async (eventIds) => {
      await store.remove(eventIds);
      for (const id of eventIds) events.delete(id);
    },
  };
  const auditPath = join(dir, AUDIT_FILE);
  const audit: AuditTrail = {
    async record(entry) {
      await appendFile(auditPath, `${JSON.stringify({ at: Date.now(), ...entry })}\n`, { mode: 0o600 });
    },
    async recent(limit) {
      const text = await readFile(auditPath, 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter(Boolean)
        .slice(-limit)
        .reverse()
        .map((line) => JSON.parse(line) as AuditEntry);
    },
  };
  return { store: view, audit, close: () => store.close() };
}
