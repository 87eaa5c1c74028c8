/**
 * The outbox's schema steps (2, 5, 7, 8 and 9). Why they keep causal order without a lock between
 * claimants: docs/ARCHITECTURE.md ("Transactional outbox on Postgres").
 */
import { lockKey } from './outbox-locks.js';
import { PROBE_SETTING } from './outbox-sql.js';
import { SAME_DATABASE_GUARD } from './same-database.js';
import type { SchemaStep } from './schema/schema-step.js';
import { stillPending } from './still-pending.js';

/** The advisory-lock space of one schema's outbox: the first key of every lock it takes. */
export const lockSpace = (s: string): number => lockKey(`${s}.outbox`);

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
) WITH (fillfactor = 70)`,
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
  p_window integer, p_busy text[], p_busy_n integer[]
) RETURNS SETOF ${s}.outbox LANGUAGE plpgsql
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
    FROM ${s}.outbox o WHERE o.state = 'pending' ORDER BY o.seq LIMIT v_size
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
      AND NOT EXISTS (SELECT 1 FROM ${s}.outbox_tenant_stops t WHERE t.tenant_id = w.tenant_id)
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
      SELECT o.event_id, o.seq FROM ${s}.outbox o
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
  UPDATE ${s}.outbox u
  SET claimed_by = p_owner, claim_expires_at = clock_timestamp() + p_lease_ms * interval '1 millisecond',
      -- A claim is the start of an attempt: recorded here, the outbox needs no statement per
      -- event before sending (the service's dedup window counts from the first attempt).
      first_attempt_at = coalesce(u.first_attempt_at, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  FROM locked WHERE u.event_id = locked.event_id
  RETURNING u.*;
    GET DIAGNOSTICS v_found = ROW_COUNT;
    EXIT WHEN v_found > 0 OR v_size >= p_window
      OR (SELECT count(*) FROM (SELECT 1 FROM ${s}.outbox o WHERE o.state = 'pending' ORDER BY o.seq
                                OFFSET v_size LIMIT 1) AS beyond) = 0;
    v_size := least(p_window, v_size * 2);
  END LOOP;
END
$fn$`,
  ],
};

/** `outbox_record`, as step 5 wrote it and step 9 (`pending`: how it tests that a row is pending). */
const outboxRecord = (s: string, pending: string) =>
  `CREATE OR REPLACE FUNCTION ${s}.outbox_record(
  p_owner text, p_ids text[], p_kinds text[], p_patches jsonb[], p_delays integer[]
) RETURNS SETOF text LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
  UPDATE ${s}.outbox u SET
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
  WHERE u.event_id = o.event_id AND ${pending} AND u.claimed_by = p_owner
  RETURNING u.event_id;
END
$fn$`;

/**
 * Step 5: an attempt's outcome is written by one function, alone or with the next claim: carried in
 * the claim, it costs no commit of its own, which lets more drainers add throughput on a busy
 * database (`npm run bench`, outbox-postgres, 4 processes against 1).
 */
export const OUTBOX_OUTCOMES_STEP: SchemaStep = {
  version: 5,
  description: 'outbox: outcomes ride with claims',
  statements: (s) => [
    // Written only while the claim is still `p_owner`'s, `delivered` too: a process that took the
    // claim over (the lease ran out) may have its own copy in flight, which later events about the
    // entity must wait for; it records that outcome itself. plpgsql: its plan is kept per connection.
    outboxRecord(s, `u.state = 'pending'`),
    // The outcomes first, then the claim, which sees them (a plpgsql statement sees what the ones
    // before it wrote): a row per outcome written (`recorded`), then per event claimed (`claimed`).
    `CREATE OR REPLACE FUNCTION ${s}.outbox_record_claim(
  p_owner text, p_limit integer, p_max_in_flight integer, p_lease_ms integer, p_only text[], p_skip text[],
  p_window integer, p_busy text[], p_busy_n integer[],
  p_ids text[], p_kinds text[], p_patches jsonb[], p_delays integer[]
) RETURNS TABLE (recorded text, claimed ${s}.outbox) LANGUAGE plpgsql AS $fn$
BEGIN
  IF cardinality(p_ids) > 0 THEN
    RETURN QUERY SELECT r.id, NULL::${s}.outbox FROM ${s}.outbox_record(p_owner, p_ids, p_kinds, p_patches, p_delays) AS r(id);
  END IF;
  RETURN QUERY SELECT NULL::text, c FROM ${s}.outbox_claim(
    p_owner, p_limit, p_max_in_flight, p_lease_ms, p_only, p_skip, p_window, p_busy, p_busy_n) AS c;
END
$fn$`,
  ],
};

/**
 * The enqueue's checks, PL/pgSQL leaving with `refuse` when it must not write: `p_when` 'probed'
 * writes only in the transaction `probeTransaction` marked, 'written' only in one that already
 * wrote (the INSERT's own row comes after this function). Then the caller's database, the key
 * locks (before the row's `seq` exists), and a wake-up only while a listening store is idle (a
 * notifying commit takes a database-wide lock).
 */
const enqueueChecks = (
  s: string,
  refuse: string,
) => `IF (p_when = 'probed' AND current_setting('${PROBE_SETTING}', true) IS DISTINCT FROM 'on')
    OR (p_when = 'written' AND txid_current_if_assigned() IS NULL) THEN
    ${refuse}
  END IF;
  ${SAME_DATABASE_GUARD}
  PERFORM CASE WHEN k.exclusive = 1 THEN pg_advisory_xact_lock(p_lock_space, k.id)
               ELSE pg_advisory_xact_lock_shared(p_lock_space, k.id) END
  FROM unnest(p_lock_ids, p_lock_exclusive) AS k(id, exclusive);
  PERFORM pg_notify('${wakeChannel(s)}', '') FROM ${s}.outbox_idle_listeners
  WHERE idle_until > clock_timestamp() LIMIT 1;`;

/**
 * Step 7: the enqueue's checks in one function, whose plans PostgreSQL keeps per connection: behind
 * a transaction pooler, planning them at every call was most of what an enqueue added to a sale
 * (`npm run bench`, outbox-postgres, through PgBouncer). Called by versions before step 8 only.
 */
export const OUTBOX_ENQUEUE_STEP: SchemaStep = {
  version: 7,
  description: 'outbox: the enqueue planned once per connection',
  statements: (s) => [
    `CREATE OR REPLACE FUNCTION ${s}.outbox_enqueue_row(
  p_event_id text, p_tenant_id text, p_event_type text, p_envelope jsonb, p_enqueued_at bigint,
  p_keys_changes text[], p_keys_needs text[], p_trace_context text,
  p_lock_space integer, p_lock_ids integer[], p_lock_exclusive integer[],
  p_when text, p_database text, p_system_id text
) RETURNS TABLE (event_id text, tenant_id text, event_type text, envelope jsonb, enqueued_at bigint,
  keys_changes text[], keys_needs text[], trace_context text) LANGUAGE plpgsql AS $fn$
BEGIN
  ${enqueueChecks(s, 'RETURN;')}
  RETURN QUERY SELECT p_event_id, p_tenant_id, p_event_type, p_envelope, p_enqueued_at,
    p_keys_changes, p_keys_needs, p_trace_context;
END
$fn$`,
  ],
};

/**
 * Step 8: the same checks as the INSERT's condition (`... WHERE outbox_enqueue_allowed(...)`), planned
 * faster than an INSERT from a function's rows; step 7's function stays for a rolling deploy. Every
 * connection calls it, prepared statements too: written inline in a prepared INSERT (one ordered
 * `CASE`), the checks made the sale of `bench/outbox-postgres.mjs` no faster than the function
 * beyond the spread of its runs, with either driver, and would have been a second copy of them.
 */
export const OUTBOX_ENQUEUE_CHECK_STEP: SchemaStep = {
  version: 8,
  description: 'outbox: the enqueue checked in its condition',
  statements: (s) => [
    `CREATE OR REPLACE FUNCTION ${s}.outbox_enqueue_allowed(
  p_lock_space integer, p_lock_ids integer[], p_lock_exclusive integer[],
  p_when text, p_database text, p_system_id text
) RETURNS boolean LANGUAGE plpgsql AS $fn$
BEGIN
  ${enqueueChecks(s, 'RETURN false;')}
  RETURN true;
END
$fn$`,
  ],
};

/** Step 9: `outbox_record` finds outcomes by primary key whatever the statistics say (why: `stillPending`). */
export const OUTBOX_RECORD_BY_KEY_STEP: SchemaStep = {
  version: 9,
  description: 'outbox: outcomes found by primary key',
  statements: (s) => [outboxRecord(s, stillPending('u.state'))],
};
