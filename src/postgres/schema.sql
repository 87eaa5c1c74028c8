-- loyalty-partner-sdk PostgreSQL schema, version 2, for schema "loyalty".
-- Generated from src/postgres/schema/steps.ts; migrate(db, { schema }) runs the same statements
-- under an advisory lock. Replace "loyalty" to use another schema. Run it in one transaction.

CREATE SCHEMA IF NOT EXISTS "loyalty";
CREATE TABLE IF NOT EXISTS "loyalty".schema_version (
  version     integer     PRIMARY KEY,
  description text        NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
);

-- step 1: receiver inbox and rule store
CREATE TABLE IF NOT EXISTS "loyalty".inbox (
  event_id   text        PRIMARY KEY,
  event_type text        NOT NULL,
  tenant_id  text        NOT NULL DEFAULT '',
  status     text        NOT NULL CHECK (status IN ('in-progress', 'done')),
  claimed_at timestamptz NOT NULL DEFAULT now(),
  done_at    timestamptz
);
CREATE INDEX IF NOT EXISTS inbox_done_at ON "loyalty".inbox (done_at) WHERE status = 'done';
CREATE TABLE IF NOT EXISTS "loyalty".rules (
  tenant_id         text        NOT NULL,
  external_store_id text        NOT NULL,
  rule_type         text        NOT NULL,
  stamp_card_id     text        NOT NULL DEFAULT '',
  rule_version      bigint      NOT NULL,
  rule              jsonb       NOT NULL,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, external_store_id, rule_type, stamp_card_id)
);
INSERT INTO "loyalty".schema_version (version, description) VALUES (1, 'receiver inbox and rule store') ON CONFLICT (version) DO NOTHING;

-- step 2: transactional outbox
CREATE TABLE IF NOT EXISTS "loyalty".outbox (
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
);
CREATE INDEX IF NOT EXISTS outbox_pending_seq ON "loyalty".outbox (seq) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS outbox_settled ON "loyalty".outbox (state, seq) WHERE state IN ('parked', 'dead', 'expired');
CREATE INDEX IF NOT EXISTS outbox_delivered_at ON "loyalty".outbox (delivered_at) WHERE state = 'delivered';
CREATE UNLOGGED TABLE IF NOT EXISTS "loyalty".outbox_idle_listeners (
  owner      text        PRIMARY KEY,
  idle_until timestamptz NOT NULL
);
CREATE TABLE IF NOT EXISTS "loyalty".outbox_tenant_stops (
  tenant_id text   PRIMARY KEY,
  reason    text   NOT NULL,
  since     bigint NOT NULL
);
CREATE OR REPLACE FUNCTION "loyalty".outbox_claim(
  p_owner text, p_limit integer, p_max_in_flight integer, p_lease_ms integer, p_only text[], p_skip text[],
  p_window integer
) RETURNS SETOF "loyalty".outbox LANGUAGE plpgsql AS $fn$
BEGIN
  -- One claim at a time per schema: the live-claim counts below are then exact. The next
  -- statement takes a fresh snapshot, so it sees every claim committed before this lock.
  PERFORM pg_advisory_xact_lock(698913586, 0);
  RETURN QUERY
  WITH win AS MATERIALIZED (
    -- The oldest pending rows: every row that can hold back one of them is among them.
    SELECT o.event_id, o.tenant_id, o.seq, o.keys_changes, o.keys_needs, o.due_at, o.claim_expires_at
    FROM "loyalty".outbox o WHERE o.state = 'pending' ORDER BY o.seq LIMIT p_window
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
      AND NOT EXISTS (SELECT 1 FROM "loyalty".outbox_tenant_stops t WHERE t.tenant_id = w.tenant_id)
      AND w.seq NOT IN (SELECT b.seq FROM blocked b)
  ), chosen AS (
    SELECT r.event_id FROM (
      SELECT ready.event_id, ready.seq,
             ready.n + row_number() OVER (PARTITION BY ready.tenant_id ORDER BY ready.seq) AS would_be
      FROM ready
    ) r WHERE r.would_be <= p_max_in_flight ORDER BY r.seq LIMIT p_limit
  ), locked AS (
    SELECT o.event_id FROM "loyalty".outbox o JOIN chosen c ON c.event_id = o.event_id
    WHERE o.state = 'pending' AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= clock_timestamp())
    FOR UPDATE OF o SKIP LOCKED
  )
  UPDATE "loyalty".outbox u
  SET claimed_by = p_owner, claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond',
      -- A claim is the start of an attempt: recorded here, the outbox needs no statement per
      -- event before sending (the service's dedup window counts from the first attempt).
      first_attempt_at = coalesce(u.first_attempt_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  FROM locked WHERE u.event_id = locked.event_id
  RETURNING u.*;
END
$fn$;
INSERT INTO "loyalty".schema_version (version, description) VALUES (2, 'transactional outbox') ON CONFLICT (version) DO NOTHING;
