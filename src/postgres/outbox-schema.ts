/**
 * The outbox's schema step (appended to `SCHEMA_STEPS`). Why it looks the way it does is in
 * docs/ARCHITECTURE.md ("Transactional outbox on Postgres"); in short:
 *
 * - `seq` (identity) is the enqueue order; causal order between two events of a tenant follows
 *   it when their keys conflict. The enqueue statement (`outbox-sql.ts`) takes a
 *   transaction-scoped advisory lock per causal key before the row gets its `seq` (exclusive for
 *   keys the event changes, shared for keys it only needs), so of two conflicting events, the
 *   one whose transaction commits first also has the lower `seq`: `seq` order is commit order
 *   wherever order matters.
 * - `outbox_claim` serialises claims with one advisory lock (so per-tenant in-flight counts are
 *   exact) and hands out due, unclaimed (or lease-expired), causally ready rows with
 *   `FOR UPDATE SKIP LOCKED`.
 * - Delivered rows stay (state `delivered`) for the retention period, so an `eventId` enqueued
 *   again within the service's dedup window is recognised; the store deletes them in batches.
 */
import { crc32 } from '../outbox/crc32.js';
import type { SchemaStep } from './schema/steps.js';

/** The advisory-lock space of one schema's outbox: the first key of every lock it takes. */
export const lockSpace = (s: string): number => crc32(new TextEncoder().encode(`${s}.outbox`)) | 0;

export const OUTBOX_SCHEMA_STEP: SchemaStep = {
  version: 2,
  description: 'transactional outbox',
  statements: (s) => [
    `CREATE TABLE IF NOT EXISTS ${s}.outbox (
  seq              bigint      GENERATED ALWAYS AS IDENTITY,
  event_id         text        PRIMARY KEY,
  tenant_id        text        NOT NULL,
  event_type       text        NOT NULL,
  envelope         jsonb       NOT NULL,
  enqueued_at      bigint      NOT NULL,
  state            text        NOT NULL DEFAULT 'pending'
                               CHECK (state IN ('pending', 'parked', 'dead', 'expired', 'delivered')),
  attempts         integer     NOT NULL DEFAULT 0,
  first_attempt_at bigint,
  last_error       jsonb,
  due_at           timestamptz NOT NULL DEFAULT '-infinity',
  claimed_by       text,
  claim_expires_at timestamptz,
  delivered_at     timestamptz,
  keys_changes     text[]      NOT NULL,
  keys_needs       text[]      NOT NULL,
  trace_context    text
)`,
    // Claim candidates: a tenant's pending rows in seq order.
    `CREATE INDEX IF NOT EXISTS outbox_pending ON ${s}.outbox (tenant_id, seq) WHERE state = 'pending'`,
    // "Is an earlier unfinished row in conflict?": array overlap, answered by GIN over pending rows.
    `CREATE INDEX IF NOT EXISTS outbox_pending_changes ON ${s}.outbox USING gin (keys_changes) WHERE state = 'pending'`,
    `CREATE INDEX IF NOT EXISTS outbox_pending_needs ON ${s}.outbox USING gin (keys_needs) WHERE state = 'pending'`,
    `CREATE INDEX IF NOT EXISTS outbox_settled ON ${s}.outbox (state, seq) WHERE state IN ('parked', 'dead', 'expired')`,
    `CREATE INDEX IF NOT EXISTS outbox_delivered_at ON ${s}.outbox (delivered_at) WHERE state = 'delivered'`,
    `CREATE TABLE IF NOT EXISTS ${s}.outbox_tenant_stops (
  tenant_id text   PRIMARY KEY,
  reason    text   NOT NULL,
  since     bigint NOT NULL
)`,
    `CREATE OR REPLACE FUNCTION ${s}.outbox_claim(
  p_owner text, p_limit integer, p_max_in_flight integer, p_lease_ms integer, p_only text[], p_skip text[]
) RETURNS SETOF ${s}.outbox LANGUAGE plpgsql AS $fn$
BEGIN
  -- One claim at a time per schema: the live-claim counts below are then exact. The next
  -- statement takes a fresh snapshot, so it sees every claim committed before this lock.
  PERFORM pg_advisory_xact_lock(${lockSpace(s)}, 0);
  RETURN QUERY
  WITH live AS (
    SELECT l.tenant_id, count(*)::integer AS n FROM ${s}.outbox l
    WHERE l.state = 'pending' AND l.claim_expires_at > clock_timestamp()
    GROUP BY l.tenant_id
  ), ready AS (
    SELECT o.event_id, o.tenant_id, o.seq, coalesce(live.n, 0) AS n
    FROM ${s}.outbox o LEFT JOIN live ON live.tenant_id = o.tenant_id
    WHERE o.state = 'pending'
      AND o.due_at <= clock_timestamp()
      AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= clock_timestamp())
      AND coalesce(live.n, 0) < p_max_in_flight
      AND (p_only IS NULL OR o.tenant_id = ANY (p_only))
      AND NOT (o.tenant_id = ANY (p_skip))
      AND NOT EXISTS (SELECT 1 FROM ${s}.outbox_tenant_stops t WHERE t.tenant_id = o.tenant_id)
      AND NOT EXISTS (
        SELECT 1 FROM ${s}.outbox e
        WHERE e.state = 'pending' AND e.tenant_id = o.tenant_id AND e.seq < o.seq
          AND (e.keys_changes && (o.keys_changes || o.keys_needs) OR e.keys_needs && o.keys_changes)
      )
    ORDER BY o.seq
    LIMIT p_limit
    FOR UPDATE OF o SKIP LOCKED
  ), chosen AS (
    SELECT r.event_id FROM (
      SELECT ready.event_id, ready.n + row_number() OVER (PARTITION BY ready.tenant_id ORDER BY ready.seq) AS would_be
      FROM ready
    ) r WHERE r.would_be <= p_max_in_flight
  )
  UPDATE ${s}.outbox u
  SET claimed_by = p_owner, claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond'
  FROM chosen WHERE u.event_id = chosen.event_id
  RETURNING u.*;
END
$fn$`,
  ],
};
