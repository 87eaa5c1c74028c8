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
 *   `FOR UPDATE SKIP LOCKED`. Readiness is computed for the oldest `claimWindow` pending rows at
 *   once (per key: the first row that touches it, the first that changes it), one hash
 *   aggregate instead of a search per row; the rows that can hold back a row in the window are
 *   all in the window, since they are older.
 * - Wake-ups: a store given a `listen` client records itself in `outbox_idle_listeners` when a
 *   claim finds nothing, and the enqueue statement calls `pg_notify` only while such a row is
 *   live. A drainer that keeps finding work is never recorded, so under load no committing
 *   transaction notifies (a notifying commit takes a database-wide lock, see the README).
 * - Delivered rows stay (state `delivered`) for the retention period, so an `eventId` enqueued
 *   again within the service's dedup window is recognised; the store deletes them in batches.
 */
import { crc32 } from '../outbox/crc32.js';
import type { SchemaStep } from './schema/steps.js';

/** The advisory-lock space of one schema's outbox: the first key of every lock it takes. */
export const lockSpace = (s: string): number => crc32(new TextEncoder().encode(`${s}.outbox`)) | 0;

/** The `LISTEN` channel of one schema's outbox (a schema name may be too long for a channel). */
export const wakeChannel = (s: string): string => `loyalty_outbox_${(lockSpace(s) >>> 0).toString(16)}`;

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
    // Claims read the oldest pending rows in seq order (the claim window).
    `CREATE INDEX IF NOT EXISTS outbox_pending_seq ON ${s}.outbox (seq) WHERE state = 'pending'`,
    `CREATE INDEX IF NOT EXISTS outbox_settled ON ${s}.outbox (state, seq) WHERE state IN ('parked', 'dead', 'expired')`,
    `CREATE INDEX IF NOT EXISTS outbox_delivered_at ON ${s}.outbox (delivered_at) WHERE state = 'delivered'`,
    // Stores listening for wake-ups whose last claim found nothing (see outbox-listen.ts). Unlogged:
    // written when a drainer falls idle or wakes, never worth a WAL flush; empty after a crash.
    `CREATE UNLOGGED TABLE IF NOT EXISTS ${s}.outbox_idle_listeners (
  owner      text        PRIMARY KEY,
  idle_until timestamptz NOT NULL
)`,
    `CREATE TABLE IF NOT EXISTS ${s}.outbox_tenant_stops (
  tenant_id text   PRIMARY KEY,
  reason    text   NOT NULL,
  since     bigint NOT NULL
)`,
    `CREATE OR REPLACE FUNCTION ${s}.outbox_claim(
  p_owner text, p_limit integer, p_max_in_flight integer, p_lease_ms integer, p_only text[], p_skip text[],
  p_window integer
) RETURNS SETOF ${s}.outbox LANGUAGE plpgsql AS $fn$
BEGIN
  -- One claim at a time per schema: the live-claim counts below are then exact. The next
  -- statement takes a fresh snapshot, so it sees every claim committed before this lock.
  PERFORM pg_advisory_xact_lock(${lockSpace(s)}, 0);
  RETURN QUERY
  WITH win AS MATERIALIZED (
    -- The oldest pending rows: every row that can hold back one of them is among them.
    SELECT o.event_id, o.tenant_id, o.seq, o.keys_changes, o.keys_needs, o.due_at, o.claim_expires_at
    FROM ${s}.outbox o WHERE o.state = 'pending' ORDER BY o.seq LIMIT p_window
  ), keyed AS (
    SELECT w.tenant_id, k.key, w.seq, true AS x FROM win w CROSS JOIN LATERAL unnest(w.keys_changes) AS k(key)
    UNION ALL
    SELECT w.tenant_id, k.key, w.seq, false FROM win w CROSS JOIN LATERAL unnest(w.keys_needs) AS k(key)
  ), firsts AS (
    SELECT f.tenant_id, f.key, min(f.seq) AS first_any, min(f.seq) FILTER (WHERE f.x) AS first_x
    FROM keyed f GROUP BY f.tenant_id, f.key
  ), blocked AS (
    -- A key the row changes: any earlier row with the key holds it back; a key it only
    -- needs: an earlier row that changes it.
    SELECT DISTINCT k.seq FROM keyed k JOIN firsts f ON f.tenant_id = k.tenant_id AND f.key = k.key
    WHERE (k.x AND f.first_any < k.seq) OR (NOT k.x AND f.first_x < k.seq)
  ), live AS (
    SELECT w.tenant_id, count(*)::integer AS n FROM win w
    WHERE w.claim_expires_at > clock_timestamp() GROUP BY w.tenant_id
  ), ready AS (
    SELECT w.event_id, w.tenant_id, w.seq, coalesce(live.n, 0) AS n
    FROM win w LEFT JOIN live ON live.tenant_id = w.tenant_id
    WHERE w.due_at <= clock_timestamp()
      AND (w.claim_expires_at IS NULL OR w.claim_expires_at <= clock_timestamp())
      AND coalesce(live.n, 0) < p_max_in_flight
      AND (p_only IS NULL OR w.tenant_id = ANY (p_only))
      AND NOT (w.tenant_id = ANY (p_skip))
      AND NOT EXISTS (SELECT 1 FROM ${s}.outbox_tenant_stops t WHERE t.tenant_id = w.tenant_id)
      AND w.seq NOT IN (SELECT b.seq FROM blocked b)
  ), chosen AS (
    SELECT r.event_id FROM (
      SELECT ready.event_id, ready.seq,
             ready.n + row_number() OVER (PARTITION BY ready.tenant_id ORDER BY ready.seq) AS would_be
      FROM ready
    ) r WHERE r.would_be <= p_max_in_flight ORDER BY r.seq LIMIT p_limit
  ), locked AS (
    SELECT o.event_id FROM ${s}.outbox o JOIN chosen c ON c.event_id = o.event_id
    WHERE o.state = 'pending' AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= clock_timestamp())
    FOR UPDATE OF o SKIP LOCKED
  )
  UPDATE ${s}.outbox u
  SET claimed_by = p_owner, claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond',
      -- A claim is the start of an attempt: recorded here, the outbox needs no statement per
      -- event before sending (the service's dedup window counts from the first attempt).
      first_attempt_at = coalesce(u.first_attempt_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  FROM locked WHERE u.event_id = locked.event_id
  RETURNING u.*;
END
$fn$`,
  ],
};
