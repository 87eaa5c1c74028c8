/**
 * The schema, as numbered steps: `migrate` runs those a database has not seen, and the build
 * renders them all as `schema.sql` (`render.ts`). Append a step; never edit one that shipped.
 */
import {
  OUTBOX_ENQUEUE_CHECK_STEP,
  OUTBOX_ENQUEUE_STEP,
  OUTBOX_OUTCOMES_STEP,
  OUTBOX_RECORD_BY_KEY_STEP,
  OUTBOX_SCHEMA_STEP,
} from '../outbox-schema.js';
import { deliveriesTable, INBOX_EVENTS_STEP } from './inbox-step.js';
import type { SchemaStep } from './schema-step.js';

export const SCHEMA_STEPS: readonly SchemaStep[] = [
  {
    version: 1,
    description: 'receiver inbox and rule store',
    statements: (s) => [
      // The event id alone is the key (a GUIDv7, unique per event); tenant and type are
      // informational. A transactional claim commits as 'done' with the handler's writes.
      `CREATE TABLE IF NOT EXISTS ${s}.inbox (
  event_id   text        PRIMARY KEY,
  event_type text        NOT NULL,
  tenant_id  text        NOT NULL DEFAULT '',
  status     text        NOT NULL CHECK (status IN ('in-progress', 'done')),
  claimed_at timestamptz NOT NULL DEFAULT now(),
  done_at    timestamptz
)`,
      // Retention deletes old done rows in small batches, oldest first.
      `CREATE INDEX IF NOT EXISTS inbox_done_at ON ${s}.inbox (done_at) WHERE status = 'done'`,
      `CREATE TABLE IF NOT EXISTS ${s}.rules (
  tenant_id         text        NOT NULL,
  external_store_id text        NOT NULL,
  rule_type         text        NOT NULL,
  stamp_card_id     text        NOT NULL DEFAULT '',
  rule_version      bigint      NOT NULL,
  rule              jsonb       NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, external_store_id, rule_type, stamp_card_id)
)`,
    ],
  },
  OUTBOX_SCHEMA_STEP,
  {
    version: 3,
    description: 'deferred receiver inbox: stored deliveries',
    statements: (s) => [
      // One row per verified delivery of a deferred receiver, its raw body kept for the handler
      // (and for replay). Claims, lease renewals and retries change no indexed column but state.
      deliveriesTable(`${s}.inbox_deliveries`, true),
      // Claims read the due pending rows only.
      `CREATE INDEX IF NOT EXISTS inbox_deliveries_due ON ${s}.inbox_deliveries (next_attempt_at) WHERE state = 'pending'`,
      // Retention deletes old handled rows in small batches, oldest first.
      `CREATE INDEX IF NOT EXISTS inbox_deliveries_settled ON ${s}.inbox_deliveries (settled_at) WHERE state = 'handled'`,
      // list({ state }): oldest first within a state.
      `CREATE INDEX IF NOT EXISTS inbox_deliveries_by_state ON ${s}.inbox_deliveries (state, received_at)`,
    ],
  },
  {
    version: 4,
    description: 'audit trail of operator actions',
    statements: (s) => [
      // One row per redeliver, replay or discard done with `loyalty-partner outbox|inbox|dashboard`:
      // who, when, what. Never updated; read newest first.
      `CREATE TABLE IF NOT EXISTS ${s}.audit (
  at     timestamptz NOT NULL DEFAULT now(),
  actor  text        NOT NULL,
  action text        NOT NULL,
  target text        NOT NULL,
  detail jsonb
)`,
      `CREATE INDEX IF NOT EXISTS audit_at ON ${s}.audit (at)`,
    ],
  },
  OUTBOX_OUTCOMES_STEP,
  INBOX_EVENTS_STEP,
  OUTBOX_ENQUEUE_STEP,
  OUTBOX_ENQUEUE_CHECK_STEP,
  OUTBOX_RECORD_BY_KEY_STEP,
];
