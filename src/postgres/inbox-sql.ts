/**
 * The inbox's statements, for schema `s` (quoted). One round trip claims in the common case: the
 * primary key on `event_id` makes the insert the atomic claim, and the conflict branch takes over
 * a claim older than the lease (its process died) in the same statement.
 */
export const inboxSql = (s: string) => ({
  /** $1 event id, $2 type, $3 tenant, $4 status to write, $5 lease in ms. One row back: claimed. */
  claim: `INSERT INTO ${s}.inbox AS i (event_id, event_type, tenant_id, status, claimed_at, done_at)
VALUES ($1, $2, $3, $4, now(), CASE WHEN $4 = 'done' THEN now() END)
ON CONFLICT (event_id) DO UPDATE
  SET event_type = excluded.event_type, tenant_id = excluded.tenant_id, status = excluded.status,
      claimed_at = excluded.claimed_at, done_at = excluded.done_at
  WHERE i.status = 'in-progress' AND i.claimed_at < now() - make_interval(secs => $5::float8 / 1000)
RETURNING 1 AS claimed`,
  status: `SELECT status FROM ${s}.inbox WHERE event_id = $1`,
  complete: `UPDATE ${s}.inbox SET status = 'done', done_at = now() WHERE event_id = $1`,
  /** $1 event id: a running handler's claim renewed (the heartbeat). */
  extend: `UPDATE ${s}.inbox SET claimed_at = now() WHERE event_id = $1 AND status = 'in-progress' RETURNING 1`,
  release: `DELETE FROM ${s}.inbox WHERE event_id = $1 AND status = 'in-progress'`,
  /** $1 retention in ms, $2 batch size. By ctid: one small batch, never the whole table. */
  cleanup: `DELETE FROM ${s}.inbox WHERE ctid IN (
  SELECT ctid FROM ${s}.inbox
  WHERE status = 'done' AND done_at < now() - make_interval(secs => $1::float8 / 1000)
  ORDER BY done_at LIMIT $2
)`,
});
