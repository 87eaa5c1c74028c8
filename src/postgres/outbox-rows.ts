import type { InboundEnvelope } from '../contract/index.js';
import type { EventFailure, EventState, StoredEvent } from '../outbox/store.js';

/** One row as both drivers return it: `bigint` columns arrive as strings, `jsonb` parsed. */
export interface OutboxRow {
  event_id: string;
  tenant_id: string;
  envelope: InboundEnvelope | string;
  seq: string | number;
  enqueued_at: string | number;
  state: EventState;
  attempts: number;
  first_attempt_at: string | number | null;
  last_error: EventFailure | string | null;
  trace_context: string | null;
}

// A driver configured to leave jsonb as text (pg's `types` option) still works.
const json = <T>(value: T | string): T => (typeof value === 'string' ? (JSON.parse(value) as T) : value);

export function toStoredEvent(row: OutboxRow): StoredEvent {
  return {
    eventId: row.event_id,
    tenantId: row.tenant_id,
    envelope: json(row.envelope),
    seq: Number(row.seq),
    enqueuedAt: Number(row.enqueued_at),
    state: row.state,
    attempts: row.attempts,
    firstAttemptAt: row.first_attempt_at === null ? null : Number(row.first_attempt_at),
    lastError: row.last_error === null ? null : json(row.last_error),
    // Absent, not undefined, without a trace: the file store's events look the same.
    ...(row.trace_context === null ? {} : { traceparent: row.trace_context }),
  };
}
