/**
 * The deferred inbox's statements, for schema `s` (quoted), over `inbox_deliveries` (schema step
 * 3). A claim locks its candidates `FOR UPDATE SKIP LOCKED`, so concurrent claimants in any
 * process never wait on each other and never take the same row; every outcome is written only
 * while the row is still this claim's (`claimed_by` and `attempts`).
 */
export const deliveriesSql = (s: string) => {
  const t = `${s}.inbox_deliveries`;
  const lease = 'now() + make_interval(secs => $3::float8 / 1000)';
  const mine = `event_id = $1 AND claimed_by = $2 AND attempts = $3 AND state = 'pending'`;
  const columns = `event_id, event_type, tenant_id, raw_body, correlation_id, signature_timestamp::float8 AS signature_timestamp,
  secret_index, (extract(epoch FROM received_at) * 1000)::float8 AS received_ms, attempts`;
  return {
    /** $1..$8 the delivery, $9 state, $10 reason of a parked one. One row back: stored. */
    store: `INSERT INTO ${t} (event_id, event_type, tenant_id, raw_body, correlation_id, signature_timestamp,
  secret_index, received_at, state, last_error, settled_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::float8 / 1000), $9, $10, CASE WHEN $9 = 'parked' THEN now() END)
ON CONFLICT (event_id) DO NOTHING
RETURNING 1 AS stored`,
    /** $1 owner, $2 most rows, $3 lease in ms. */
    claimDue: `UPDATE ${t} SET claimed_by = $1, lease_until = ${lease}, attempts = attempts + 1
WHERE event_id IN (
  SELECT event_id FROM ${t}
  WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
  ORDER BY next_attempt_at LIMIT $2
  FOR UPDATE SKIP LOCKED
)
RETURNING ${columns}`,
    /**
     * $1 owner, $2 most rows, $3 lease in ms; $4 event ids and $5 attempts of this owner's claims
     * whose handlers succeeded: marked `handled` (while still this claim's) in the same statement
     * as the claim, which never takes them. A row per mark written (`marked`), then the claims.
     */
    markHandledAndClaim: `WITH marked AS (
  UPDATE ${t} u SET state = 'handled', settled_at = now(), claimed_by = NULL, lease_until = NULL, last_error = NULL
  FROM unnest($4::text[], $5::int[]) AS m(event_id, attempts)
  WHERE u.event_id = m.event_id AND u.claimed_by = $1 AND u.attempts = m.attempts AND u.state = 'pending'
  RETURNING u.event_id
), claimed AS (
  UPDATE ${t} SET claimed_by = $1, lease_until = ${lease}, attempts = attempts + 1
  WHERE event_id IN (
    SELECT event_id FROM ${t}
    WHERE state = 'pending' AND next_attempt_at <= now() AND (lease_until IS NULL OR lease_until < now())
      AND NOT (event_id = ANY ($4::text[]))
    ORDER BY next_attempt_at LIMIT $2
    FOR UPDATE SKIP LOCKED
  )
  RETURNING ${columns}
)
SELECT event_id AS marked, NULL AS event_id, NULL AS event_type, NULL AS tenant_id, NULL AS raw_body,
  NULL AS correlation_id, NULL::float8 AS signature_timestamp, NULL::int AS secret_index, NULL::float8 AS received_ms,
  NULL::int AS attempts
FROM marked
UNION ALL
SELECT NULL, event_id, event_type, tenant_id, raw_body, correlation_id, signature_timestamp, secret_index, received_ms,
  attempts
FROM claimed`,
    /**
     * $1 owner, $2 event ids, $3 lease in ms: renews what is still held and answers the ids held.
     * A row locked by this process's own `runHandled` transaction is skipped, not waited for: no
     * claim takes a locked row either.
     */
    extendLease: `WITH renewed AS (
  UPDATE ${t} SET lease_until = ${lease}
  WHERE event_id IN (
    SELECT event_id FROM ${t} WHERE event_id = ANY($2::text[]) AND claimed_by = $1 AND state = 'pending'
    FOR UPDATE SKIP LOCKED
  )
  RETURNING 1
)
SELECT event_id FROM ${t} WHERE event_id = ANY($2::text[]) AND claimed_by = $1 AND state = 'pending'`,
    /** $1 event id, $2 owner, $3 attempt. */
    markHandled: `UPDATE ${t} SET state = 'handled', settled_at = now(), claimed_by = NULL, lease_until = NULL,
  last_error = NULL
WHERE ${mine} RETURNING 1 AS marked`,
    /** $1 event id, $2 owner, $3 attempt, $4 error, $5 ms until the next attempt or null: dead. */
    markFailed: `UPDATE ${t} SET claimed_by = NULL, lease_until = NULL, last_error = $4,
  state = CASE WHEN $5::float8 IS NULL THEN 'dead' ELSE 'pending' END,
  next_attempt_at = coalesce(now() + $5::float8 * interval '1 millisecond', next_attempt_at),
  settled_at = CASE WHEN $5::float8 IS NULL THEN now() END
WHERE ${mine} RETURNING 1 AS marked`,
    /** $1 event id, $2 owner, $3 attempt, $4 reason. */
    markParked: `UPDATE ${t} SET state = 'parked', settled_at = now(), claimed_by = NULL, lease_until = NULL,
  last_error = $4
WHERE ${mine} RETURNING 1 AS marked`,
    stats: `SELECT state, count(*)::int AS n FROM ${t} GROUP BY state`,
    /** Per tenant and state, without the handled rows kept for the retention (by_state can skip them). */
    statsByTenant: `SELECT tenant_id, state, count(*)::int AS n,
  (extract(epoch FROM min(received_at)) * 1000)::float8 AS oldest_ms
FROM ${t} WHERE state IN ('pending', 'dead', 'parked') GROUP BY tenant_id, state`,
    /** $1 state, $2 tenant or null, $3 limit. */
    list: `SELECT event_id, event_type, tenant_id, state, attempts, last_error,
  (extract(epoch FROM received_at) * 1000)::float8 AS received_ms,
  (extract(epoch FROM next_attempt_at) * 1000)::float8 AS next_ms,
  (extract(epoch FROM settled_at) * 1000)::float8 AS settled_ms
FROM ${t} WHERE state = $1 AND ($2::text IS NULL OR tenant_id = $2)
ORDER BY received_at, event_id LIMIT $3`,
    /** $1 event id. */
    replay: `UPDATE ${t} SET state = 'pending', attempts = 0, next_attempt_at = now(), claimed_by = NULL,
  lease_until = NULL, settled_at = NULL
WHERE event_id = $1 AND state <> 'pending' AND raw_body IS NOT NULL RETURNING 1 AS replayed`,
    /** $1 event id. The row stays (a redelivery is a duplicate); its body goes. */
    discard: `UPDATE ${t} SET state = 'handled', raw_body = NULL, last_error = 'discarded', settled_at = now(),
  claimed_by = NULL, lease_until = NULL
WHERE event_id = $1 AND state <> 'handled' RETURNING 1 AS discarded`,
    /** $1 retention in ms, $2 batch size. By ctid: one small batch, never the whole table. */
    cleanup: `DELETE FROM ${t} WHERE ctid IN (
  SELECT ctid FROM ${t}
  WHERE state = 'handled' AND settled_at < now() - make_interval(secs => $1::float8 / 1000)
  ORDER BY settled_at LIMIT $2
)`,
  };
};
