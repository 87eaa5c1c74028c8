import { stillPending } from './still-pending.js';

/**
 * The inbox's statements over one record per event id (`inbox_events`, step 6), for quoted schema
 * `s`. The primary key makes an immediate receipt's insert (owner `'receipt'`) the atomic claim;
 * deferred claims lock `FOR UPDATE SKIP LOCKED`, so claimants never wait on each other. An outcome
 * is written only while the row is still that claim's (`claimed_by`, `attempts`); times are `now()`.
 */
export const inboxSql = (s: string) => {
  const t = `${s}.inbox_events`;
  const lease = (n: number) => `now() + make_interval(secs => $${n}::float8 / 1000)`;
  const pending = stillPending('state');
  const mine = `event_id = $1 AND claimed_by = $2 AND attempts = $3 AND ${pending}`;
  const receipt = `event_id = $1 AND ${pending} AND claimed_by = 'receipt'`;
  // Free to run now: stored and not running, a receipt whose process died, or dead or parked (the
  // service sent it again: the handler gets another chance).
  const takeable = `(i.state = 'pending' AND (i.lease_until IS NULL OR i.lease_until < now())) OR i.state IN ('dead', 'parked')`;
  const due = `state = 'pending' AND raw_body IS NOT NULL AND next_attempt_at <= now()
    AND (lease_until IS NULL OR lease_until < now())`;
  // A claim's row is a ClaimedDelivery as it is.
  const columns = `event_id AS "eventId", event_type AS "eventType", tenant_id AS "tenantId", raw_body AS "rawBody",
  correlation_id AS "correlationId", signature_timestamp::float8 AS "signatureTimestamp", secret_index AS "secretIndex",
  (extract(epoch FROM received_at) * 1000)::float8 AS "receivedAt", claimed_by AS owner, attempts AS attempt`;
  const settled = `claimed_by = NULL, lease_until = NULL, settled_at = now()`;
  // $1 event id; $2 actor or null (no audit entry), $3 detail: the audit row commits with the action.
  const audited = (action: string, update: string) => `WITH prior AS (
  SELECT event_id, state FROM ${t} WHERE event_id = $1 FOR UPDATE
), acted AS (
  UPDATE ${t} i SET ${update}
  RETURNING prior.state AS from_state
), audit AS (
  INSERT INTO ${s}.audit (actor, action, target, detail)
  SELECT $2, '${action}', $1, coalesce($3::text::jsonb, '{}'::jsonb) || jsonb_build_object('from', from_state)
  FROM acted WHERE $2::text IS NOT NULL
)
SELECT from_state FROM acted`;
  return {
    /** $1 event id, $2 type, $3 tenant, $4 lease in ms. One row back: claimed. */
    begin: `INSERT INTO ${t} AS i (event_id, event_type, tenant_id, state, attempts, claimed_by, lease_until)
VALUES ($1, $2, $3, 'pending', 1, 'receipt', ${lease(4)})
ON CONFLICT (event_id) DO UPDATE
  SET state = 'pending', attempts = i.attempts + 1, claimed_by = 'receipt', lease_until = excluded.lease_until,
      settled_at = NULL
  WHERE ${takeable}
RETURNING 1 AS claimed`,
    /** In a transaction: the claim written as handled, committed with the handler's writes. */
    beginHandled: `INSERT INTO ${t} AS i (event_id, event_type, tenant_id, state, attempts, settled_at)
VALUES ($1, $2, $3, 'handled', 1, now())
ON CONFLICT (event_id) DO UPDATE
  SET state = 'handled', attempts = i.attempts + 1, claimed_by = NULL, lease_until = NULL, last_error = NULL,
      settled_at = now()
  WHERE ${takeable}
RETURNING 1 AS claimed`,
    state: `SELECT state FROM ${t} WHERE event_id = $1`,
    complete: `UPDATE ${t} SET state = 'handled', last_error = NULL, ${settled} WHERE ${receipt}`,
    /** $1 event id, $2 lease in ms: a running handler's claim renewed (the heartbeat). */
    extend: `UPDATE ${t} SET lease_until = ${lease(2)} WHERE ${receipt} RETURNING 1`,
    /** A record with a body goes back to the deferred runner, due now; one without is deleted. */
    release: `WITH gone AS (DELETE FROM ${t} WHERE ${receipt} AND raw_body IS NULL RETURNING 1)
UPDATE ${t} SET claimed_by = NULL, lease_until = NULL, next_attempt_at = now()
WHERE ${receipt} AND raw_body IS NOT NULL`,
    /** $1..$8 the delivery, $9 state, $10 parked reason. One row written: stored, or given to a running receipt. */
    store: `INSERT INTO ${t} AS i (event_id, event_type, tenant_id, raw_body, correlation_id, signature_timestamp,
  secret_index, received_at, state, last_error, settled_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::float8 / 1000), $9, $10, CASE WHEN $9 = 'parked' THEN now() END)
ON CONFLICT (event_id) DO UPDATE
  SET raw_body = excluded.raw_body, correlation_id = excluded.correlation_id,
      signature_timestamp = excluded.signature_timestamp, secret_index = excluded.secret_index
  WHERE i.state = 'pending' AND i.raw_body IS NULL`,
    /** $1 owner, $2 most rows, $3 lease in ms. */
    claimDue: `UPDATE ${t} SET claimed_by = $1, lease_until = ${lease(3)}, attempts = attempts + 1
WHERE event_id IN (
  SELECT event_id FROM ${t} WHERE ${due}
  ORDER BY next_attempt_at LIMIT $2
  FOR UPDATE SKIP LOCKED
)
RETURNING ${columns}`,
    /**
     * $1 owner, $2 most rows, $3 lease ms; $4 ids and $5 attempts of claims whose handlers succeeded,
     * marked `handled` in the same statement as the claim. A row per mark (`marked`), then the claims.
     */
    markHandledAndClaim: `WITH marked AS (
  UPDATE ${t} u SET state = 'handled', last_error = NULL, ${settled}
  FROM unnest($4::text[], $5::int[]) AS m(event_id, attempts)
  WHERE u.event_id = m.event_id AND u.claimed_by = $1 AND u.attempts = m.attempts AND ${stillPending('u.state')}
  RETURNING u.event_id
), claimed AS (
  UPDATE ${t} SET claimed_by = $1, lease_until = ${lease(3)}, attempts = attempts + 1
  WHERE event_id IN (
    SELECT event_id FROM ${t} WHERE ${due} AND NOT (event_id = ANY ($4::text[]))
    ORDER BY next_attempt_at LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  RETURNING ${columns}
)
SELECT event_id AS marked, NULL AS "eventId", NULL AS "eventType", NULL AS "tenantId", NULL AS "rawBody",
  NULL AS "correlationId", NULL::float8 AS "signatureTimestamp", NULL::int AS "secretIndex", NULL::float8 AS "receivedAt",
  NULL AS owner, NULL::int AS attempt
FROM marked
UNION ALL
SELECT NULL, * FROM claimed`,
    /** $1 owner, $2 event ids, $3 lease in ms: renews what is still held, answers the ids held. */
    extendLease: `WITH renewed AS (
  UPDATE ${t} SET lease_until = ${lease(3)}
  WHERE event_id = ANY($2::text[]) AND claimed_by = $1 AND ${pending}
  RETURNING event_id
)
SELECT event_id FROM renewed`,
    /** $1 event id, $2 owner, $3 attempt. */
    markHandled: `UPDATE ${t} SET state = 'handled', last_error = NULL, ${settled} WHERE ${mine} RETURNING 1 AS marked`,
    /** In a run's transaction, if still the one the run opened ($4; a handler may have ended it). */
    markHandledIn: `UPDATE ${t} SET state = 'handled', last_error = NULL, ${settled}
WHERE ${mine} AND current_setting('loyalty_partner.claim', true) = $4 RETURNING 1 AS marked`,
    /** $1 event id, $2 owner, $3 attempt, $4 token: opens a run's transaction if the claim is held. */
    openRun: `SELECT set_config('loyalty_partner.claim', $4, true) FROM ${t} WHERE ${mine}`,
    /** $1 token: is this still the transaction that set it? */
    sameTransaction: `SELECT current_setting('loyalty_partner.claim', true) = $1 AS same`,
    /** $1 event id, $2 owner, $3 attempt, $4 error, $5 ms until the next attempt, or null: dead. */
    markFailed: `UPDATE ${t} SET claimed_by = NULL, lease_until = NULL, last_error = $4,
  state = CASE WHEN $5::float8 IS NULL THEN 'dead' ELSE 'pending' END,
  next_attempt_at = coalesce(now() + make_interval(secs => $5::float8 / 1000), next_attempt_at),
  settled_at = CASE WHEN $5::float8 IS NULL THEN now() END
WHERE ${mine} RETURNING 1 AS marked`,
    /** $1 event id, $2 owner, $3 attempt, $4 reason. */
    markParked: `UPDATE ${t} SET state = 'parked', last_error = $4, ${settled} WHERE ${mine} RETURNING 1 AS marked`,
    /** $1 event id, $2 reason: a run that cannot be recorded as anything else. */
    markDead: `UPDATE ${t} SET state = 'dead', last_error = $2, ${settled} WHERE event_id = $1 AND ${pending}`,
    stats: `SELECT state, count(*)::int AS n FROM ${t} GROUP BY state`,
    /** $1 limit, $2 tenant or null: the busiest first, and how many; handled rows are never read. */
    statsByTenant: `WITH counts AS (
  SELECT tenant_id,
    count(*) FILTER (WHERE state = 'pending')::int AS pending,
    count(*) FILTER (WHERE state = 'dead')::int AS dead,
    count(*) FILTER (WHERE state = 'parked')::int AS parked,
    (extract(epoch FROM min(received_at) FILTER (WHERE state = 'pending')) * 1000)::float8 AS oldest_ms
  FROM ${t} WHERE state IN ('pending', 'dead', 'parked') AND ($2::text IS NULL OR tenant_id = $2)
  GROUP BY tenant_id
)
SELECT *, count(*) OVER ()::int AS total FROM counts
ORDER BY pending + dead + parked DESC, oldest_ms ASC NULLS LAST, tenant_id LIMIT $1`,
    /** $1 state, $2 tenant or null, $3 limit. */
    list: `SELECT event_id, event_type, tenant_id, state, attempts, last_error,
  (extract(epoch FROM received_at) * 1000)::float8 AS received_ms,
  (extract(epoch FROM next_attempt_at) * 1000)::float8 AS next_ms,
  (extract(epoch FROM settled_at) * 1000)::float8 AS settled_ms
FROM ${t} WHERE state = $1 AND ($2::text IS NULL OR tenant_id = $2)
ORDER BY received_at, event_id LIMIT $3`,
    replay: audited(
      'inbox.replay',
      `state = 'pending', attempts = 0, next_attempt_at = now(), claimed_by = NULL, lease_until = NULL,
    settled_at = NULL
  FROM prior WHERE i.event_id = prior.event_id AND i.state <> 'pending' AND i.raw_body IS NOT NULL`,
    ),
    /** The row stays (a redelivery is a duplicate); its body goes. Never while a handler runs. */
    discard: audited(
      'inbox.discard',
      `state = 'handled', raw_body = NULL, last_error = 'discarded', claimed_by = NULL, lease_until = NULL,
    settled_at = now()
  FROM prior WHERE i.event_id = prior.event_id AND i.state <> 'handled'
    AND NOT (i.state = 'pending' AND coalesce(i.lease_until >= now(), false))`,
    ),
    /** $1 retention in ms, $2 batch size. By ctid: one small batch, never the whole table. */
    cleanup: `DELETE FROM ${t} WHERE ctid IN (
  SELECT ctid FROM ${t}
  WHERE state = 'handled' AND settled_at < now() - make_interval(secs => $1::float8 / 1000)
  ORDER BY settled_at LIMIT $2
)`,
  };
};
