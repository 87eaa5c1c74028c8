-- loyalty-partner-sdk PostgreSQL schema, version 6, for schema "loyalty".
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
) WITH (fillfactor = 70);
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
  p_window integer, p_busy text[], p_busy_n integer[]
) RETURNS SETOF "loyalty".outbox LANGUAGE plpgsql
-- One plan per connection, never re-planned per call (a custom plan for this statement costs
-- about what running it does); the plan does not depend on the parameters' values.
SET plan_cache_mode = force_generic_plan AS $fn$
DECLARE
  -- The window starts at twice what this claim can take plus what this caller sends (the rows
  -- in flight are the oldest pending ones), and doubles, up to p_window, only while it was full
  -- and nothing in it was ready (the oldest rows all wait for each other, or are in flight in
  -- other processes): readiness is weighed over as few rows as the backlog allows, since its
  -- cost grows with the window.
  v_size integer := least(p_window, greatest(64, 2 * (p_limit + coalesce((SELECT sum(n) FROM unnest(p_busy_n) AS b(n)), 0)::integer)));
  v_found integer;
BEGIN
  LOOP
  -- No lock between claimants: each caller says how many events of each tenant it already sends
  -- (p_busy, p_busy_n), and may take up to p_max_in_flight minus that. Why two claims computing
  -- readiness on different snapshots still keep causal order: see the header of this file.
  -- (plpgsql rather than sql: its plan is cached for the connection, not made at every call.)
  RETURN QUERY
  WITH win AS MATERIALIZED (
    -- The oldest pending rows: every row that can hold back one of them is among them.
    SELECT o.event_id, o.tenant_id, o.seq, o.keys_changes, o.keys_needs, o.due_at, o.claim_expires_at
    FROM "loyalty".outbox o WHERE o.state = 'pending' ORDER BY o.seq LIMIT v_size
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
  ), ready AS MATERIALIZED (
    SELECT w.event_id, w.tenant_id, w.seq FROM win w
    WHERE w.due_at <= clock_timestamp()
      AND (w.claim_expires_at IS NULL OR w.claim_expires_at <= clock_timestamp())
      AND (p_only IS NULL OR w.tenant_id = ANY (p_only))
      AND NOT (w.tenant_id = ANY (p_skip))
      AND NOT EXISTS (SELECT 1 FROM "loyalty".outbox_tenant_stops t WHERE t.tenant_id = w.tenant_id)
      AND w.seq NOT IN (SELECT b.seq FROM blocked b)
  ), room AS (
    SELECT r.tenant_id, least(p_limit, p_max_in_flight - coalesce(max(b.n), 0)) AS n
    FROM ready r LEFT JOIN unnest(p_busy, p_busy_n) AS b(tenant_id, n) ON b.tenant_id = r.tenant_id
    GROUP BY r.tenant_id
  ), locked AS (
    -- Per tenant, its oldest ready rows that no other claim holds, locked as they are taken:
    -- a row another process is claiming right now is skipped and the next one taken instead.
    -- Re-checked on the row's latest version (READ COMMITTED): a claim committed since this
    -- statement's snapshot fails the lease condition, so each row has one claimant.
    SELECT l.event_id, l.seq FROM room CROSS JOIN LATERAL (
      SELECT o.event_id, o.seq FROM "loyalty".outbox o
      -- A few more candidates than taken: rows being claimed by others right now are skipped.
      -- Found by primary key only: written as a plain equality, the state test would let the
      -- planner AND the candidates with a scan of the whole pending index (every row of the
      -- backlog, at every claim); the concatenation cannot use that index, and tests the same.
      WHERE o.event_id = ANY (ARRAY(SELECT r.event_id FROM ready r WHERE r.tenant_id = room.tenant_id
                                    ORDER BY r.seq LIMIT 4 * greatest(room.n, 0)))
        AND o.state || '' = 'pending' AND (o.claim_expires_at IS NULL OR o.claim_expires_at <= clock_timestamp())
      ORDER BY o.seq LIMIT greatest(room.n, 0)
      FOR UPDATE OF o SKIP LOCKED
    ) l WHERE room.n > 0
    ORDER BY l.seq LIMIT p_limit
  )
  UPDATE "loyalty".outbox u
  SET claimed_by = p_owner, claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond',
      -- A claim is the start of an attempt: recorded here, the outbox needs no statement per
      -- event before sending (the service's dedup window counts from the first attempt).
      first_attempt_at = coalesce(u.first_attempt_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  FROM locked WHERE u.event_id = locked.event_id
  RETURNING u.*;
    GET DIAGNOSTICS v_found = ROW_COUNT;
    EXIT WHEN v_found > 0 OR v_size >= p_window
      OR (SELECT count(*) FROM (SELECT 1 FROM "loyalty".outbox o WHERE o.state = 'pending' ORDER BY o.seq
                                OFFSET v_size LIMIT 1) AS beyond) = 0;
    v_size := least(p_window, v_size * 2);
  END LOOP;
END
$fn$;
INSERT INTO "loyalty".schema_version (version, description) VALUES (2, 'transactional outbox') ON CONFLICT (version) DO NOTHING;

-- step 3: deferred receiver inbox: stored deliveries
CREATE TABLE IF NOT EXISTS "loyalty".inbox_deliveries (
  event_id            text        PRIMARY KEY,
  event_type          text        NOT NULL,
  tenant_id           text        NOT NULL DEFAULT '',
  state               text        NOT NULL CHECK (state IN ('pending', 'handled', 'dead', 'parked')),
  raw_body            text,
  correlation_id      text        NOT NULL,
  signature_timestamp bigint      NOT NULL,
  secret_index        int         NOT NULL,
  received_at         timestamptz NOT NULL,
  attempts            int         NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  claimed_by          text,
  lease_until         timestamptz,
  last_error          text,
  settled_at          timestamptz
) WITH (fillfactor = 80);
CREATE INDEX IF NOT EXISTS inbox_deliveries_due ON "loyalty".inbox_deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS inbox_deliveries_settled ON "loyalty".inbox_deliveries (settled_at) WHERE state = 'handled';
CREATE INDEX IF NOT EXISTS inbox_deliveries_by_state ON "loyalty".inbox_deliveries (state, received_at);
INSERT INTO "loyalty".schema_version (version, description) VALUES (3, 'deferred receiver inbox: stored deliveries') ON CONFLICT (version) DO NOTHING;

-- step 4: audit trail of operator actions
CREATE TABLE IF NOT EXISTS "loyalty".audit (
  at     timestamptz NOT NULL DEFAULT now(),
  actor  text        NOT NULL,
  action text        NOT NULL,
  target text        NOT NULL,
  detail jsonb
);
CREATE INDEX IF NOT EXISTS audit_at ON "loyalty".audit (at);
INSERT INTO "loyalty".schema_version (version, description) VALUES (4, 'audit trail of operator actions') ON CONFLICT (version) DO NOTHING;

-- step 5: outbox: outcomes ride with claims
CREATE OR REPLACE FUNCTION "loyalty".outbox_record(
  p_owner text, p_ids text[], p_kinds text[], p_patches jsonb[], p_delays integer[]
) RETURNS SETOF text LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
  UPDATE "loyalty".outbox u SET
    state = CASE o.kind WHEN 'delivered' THEN 'delivered' ELSE coalesce(o.patch->>'state', u.state) END,
    attempts = coalesce((o.patch->>'attempts')::integer, u.attempts),
    first_attempt_at = CASE WHEN o.patch ? 'firstAttemptAt' THEN (o.patch->>'firstAttemptAt')::bigint ELSE u.first_attempt_at END,
    last_error = CASE WHEN o.patch ? 'lastError' THEN nullif(o.patch->'lastError', 'null'::jsonb) ELSE u.last_error END,
    due_at = CASE o.kind
      WHEN 'retry' THEN clock_timestamp() + o.delay_ms * interval '1 millisecond'
      WHEN 'release' THEN '-infinity'::timestamptz
      ELSE u.due_at END,
    delivered_at = CASE o.kind WHEN 'delivered' THEN clock_timestamp() ELSE u.delivered_at END,
    claimed_by = NULL,
    claim_expires_at = NULL
  FROM unnest(p_ids, p_kinds, p_patches, p_delays) AS o(event_id, kind, patch, delay_ms)
  WHERE u.event_id = o.event_id AND u.state = 'pending' AND u.claimed_by = p_owner
  RETURNING u.event_id;
END
$fn$;
CREATE OR REPLACE FUNCTION "loyalty".outbox_record_claim(
  p_owner text, p_limit integer, p_max_in_flight integer, p_lease_ms integer, p_only text[], p_skip text[],
  p_window integer, p_busy text[], p_busy_n integer[],
  p_ids text[], p_kinds text[], p_patches jsonb[], p_delays integer[]
) RETURNS TABLE (recorded text, claimed "loyalty".outbox) LANGUAGE plpgsql AS $fn$
BEGIN
  IF cardinality(p_ids) > 0 THEN
    RETURN QUERY SELECT r.id, NULL::"loyalty".outbox FROM "loyalty".outbox_record(p_owner, p_ids, p_kinds, p_patches, p_delays) AS r(id);
  END IF;
  RETURN QUERY SELECT NULL::text, c FROM "loyalty".outbox_claim(
    p_owner, p_limit, p_max_in_flight, p_lease_ms, p_only, p_skip, p_window, p_busy, p_busy_n) AS c;
END
$fn$;
INSERT INTO "loyalty".schema_version (version, description) VALUES (5, 'outbox: outcomes ride with claims') ON CONFLICT (version) DO NOTHING;

-- step 6: one inbox record per event id (inbox_events)
CREATE TABLE IF NOT EXISTS "loyalty".inbox_events (
  event_id            text        PRIMARY KEY,
  event_type          text        NOT NULL,
  tenant_id           text        NOT NULL DEFAULT '',
  state               text        NOT NULL CHECK (state IN ('pending', 'handled', 'dead', 'parked')),
  raw_body            text,
  correlation_id      text,
  signature_timestamp bigint,
  secret_index        int,
  received_at         timestamptz NOT NULL DEFAULT now(),
  attempts            int         NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  claimed_by          text,
  lease_until         timestamptz,
  last_error          text,
  settled_at          timestamptz
) WITH (fillfactor = 80);
CREATE INDEX IF NOT EXISTS inbox_events_due ON "loyalty".inbox_events (next_attempt_at) WHERE state = 'pending';
CREATE INDEX IF NOT EXISTS inbox_events_settled ON "loyalty".inbox_events (settled_at) WHERE state = 'handled';
CREATE INDEX IF NOT EXISTS inbox_events_by_state ON "loyalty".inbox_events (state, received_at);
LOCK TABLE "loyalty".inbox, "loyalty".inbox_deliveries IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO "loyalty".inbox_events (event_id, event_type, tenant_id, correlation_id, signature_timestamp, secret_index, received_at, state, raw_body, attempts, next_attempt_at, claimed_by, lease_until, last_error, settled_at) SELECT event_id, event_type, tenant_id, correlation_id, signature_timestamp, secret_index, received_at, state, raw_body, attempts, next_attempt_at, claimed_by, lease_until, last_error, settled_at FROM "loyalty".inbox_deliveries ON CONFLICT (event_id) DO NOTHING;
INSERT INTO "loyalty".inbox_events AS e (event_id, event_type, tenant_id, state, attempts, claimed_by, lease_until, received_at,
  settled_at)
SELECT event_id, event_type, tenant_id, CASE WHEN status = 'done' THEN 'handled' ELSE 'pending' END, 1,
  CASE WHEN status = 'in-progress' THEN 'receipt' END, CASE WHEN status = 'in-progress' THEN claimed_at + interval '10 minutes' END, claimed_at, done_at
FROM "loyalty".inbox
ON CONFLICT (event_id) DO UPDATE SET state = 'handled', settled_at = excluded.settled_at, claimed_by = NULL,
  lease_until = NULL
WHERE excluded.state = 'handled' AND e.state <> 'handled';
CREATE OR REPLACE FUNCTION "loyalty".inbox_from_legacy() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'inbox' THEN
    IF TG_OP = 'DELETE' THEN
      -- A released claim; handled rows past the retention go with this side's own cleanup.
      DELETE FROM "loyalty".inbox_events WHERE event_id = OLD.event_id AND raw_body IS NULL AND state = 'pending';
      RETURN NULL;
    END IF;
    INSERT INTO "loyalty".inbox_events (event_id, event_type, tenant_id, state, attempts, claimed_by, lease_until, received_at, settled_at)
    VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, CASE WHEN NEW.status = 'done' THEN 'handled' ELSE 'pending' END, 1,
      CASE WHEN NEW.status = 'in-progress' THEN 'receipt' END, CASE WHEN NEW.status = 'in-progress' THEN NEW.claimed_at + interval '10 minutes' END,
      NEW.claimed_at, NEW.done_at)
    ON CONFLICT (event_id) DO UPDATE SET state = excluded.state, claimed_by = excluded.claimed_by,
      lease_until = excluded.lease_until, settled_at = excluded.settled_at;
  ELSIF TG_OP <> 'DELETE' THEN
    INSERT INTO "loyalty".inbox_events (event_id, event_type, tenant_id, correlation_id, signature_timestamp, secret_index, received_at, state, raw_body, attempts, next_attempt_at, claimed_by, lease_until, last_error, settled_at) VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, NEW.correlation_id, NEW.signature_timestamp, NEW.secret_index, NEW.received_at, NEW.state, NEW.raw_body, NEW.attempts, NEW.next_attempt_at, NEW.claimed_by, NEW.lease_until, NEW.last_error, NEW.settled_at)
    ON CONFLICT (event_id) DO UPDATE SET state = excluded.state, raw_body = excluded.raw_body, attempts = excluded.attempts, next_attempt_at = excluded.next_attempt_at, claimed_by = excluded.claimed_by, lease_until = excluded.lease_until, last_error = excluded.last_error, settled_at = excluded.settled_at;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE OR REPLACE FUNCTION "loyalty".inbox_to_legacy() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "loyalty".inbox WHERE event_id = OLD.event_id;
    DELETE FROM "loyalty".inbox_deliveries WHERE event_id = OLD.event_id AND raw_body IS NULL;
    RETURN NULL;
  END IF;
  INSERT INTO "loyalty".inbox (event_id, event_type, tenant_id, status, claimed_at, done_at)
  VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, CASE WHEN NEW.state = 'pending' THEN 'in-progress' ELSE 'done' END,
    now(), CASE WHEN NEW.state <> 'pending' THEN now() END)
  ON CONFLICT (event_id) DO UPDATE SET status = excluded.status, claimed_at = excluded.claimed_at, done_at = excluded.done_at;
  INSERT INTO "loyalty".inbox_deliveries (event_id, event_type, tenant_id, state, correlation_id, signature_timestamp,
    secret_index, received_at, settled_at)
  VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, 'handled', coalesce(NEW.correlation_id, ''),
    coalesce(NEW.signature_timestamp, 0), coalesce(NEW.secret_index, 0), NEW.received_at, now())
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END
$fn$;
DO $do$
BEGIN
  IF EXISTS (SELECT 1 FROM "loyalty".inbox) OR EXISTS (SELECT 1 FROM "loyalty".inbox_deliveries) THEN
    CREATE OR REPLACE TRIGGER inbox_from_legacy AFTER INSERT OR UPDATE OR DELETE ON "loyalty".inbox
      FOR EACH ROW EXECUTE FUNCTION "loyalty".inbox_from_legacy();
    CREATE OR REPLACE TRIGGER inbox_from_legacy AFTER INSERT OR UPDATE OR DELETE ON "loyalty".inbox_deliveries
      FOR EACH ROW EXECUTE FUNCTION "loyalty".inbox_from_legacy();
    CREATE OR REPLACE TRIGGER inbox_to_legacy AFTER INSERT OR UPDATE OR DELETE ON "loyalty".inbox_events
      FOR EACH ROW EXECUTE FUNCTION "loyalty".inbox_to_legacy();
  ELSE
    DROP TABLE "loyalty".inbox, "loyalty".inbox_deliveries;
    DROP FUNCTION "loyalty".inbox_from_legacy(), "loyalty".inbox_to_legacy();
  END IF;
END
$do$;
INSERT INTO "loyalty".schema_version (version, description) VALUES (6, 'one inbox record per event id (inbox_events)') ON CONFLICT (version) DO NOTHING;
