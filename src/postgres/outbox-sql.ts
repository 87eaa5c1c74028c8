import { stillPending } from './still-pending.js';

/**
 * The statements of `postgresStore`, for one quoted schema name. Delivered rows stay until
 * retention deletes them; every read that shows events leaves them out. JSON goes in as text, cast
 * (`$4::text::jsonb`): postgres.js would store a json-typed parameter's text as one JSON string.
 */
export type OutboxSql = ReturnType<typeof outboxSql>;

const COLUMNS =
  'event_id, tenant_id, envelope, seq, enqueued_at, state, attempts, first_attempt_at, last_error, trace_context';

/** The same columns of `outbox_record_claim`'s `claimed` rows. */
const CLAIMED_COLUMNS = COLUMNS.split(', ')
  .map((column) => `(c.claimed).${column}`)
  .join(', ');

/** Set (transaction-local) by the probe a pipelined enqueue sends before its INSERT. */
export const PROBE_SETTING = 'loyalty_outbox.in_transaction';

/**
 * The row, written if `outbox_enqueue_allowed` (step 8) allows it: `when` says in which transaction
 * it may write; $12/$13 the store's database (`SAME_DATABASE_GUARD`), NULL without a caller's `tx`.
 * An `eventId` already stored is left as it is (`ON CONFLICT`), except where the enqueue made the
 * id itself (`fresh`): no row can hold it, and the look for one made a sale slower.
 */
const enqueueStatement = (
  s: string,
  when: 'always' | 'probed' | 'written',
  { guarded = true, fresh = false } = {},
) =>
  `INSERT INTO ${s}.outbox (event_id, tenant_id, event_type, envelope, enqueued_at, keys_changes, keys_needs, trace_context)
SELECT $1::text, $2::text, $3::text, $4::text::jsonb, $5::bigint, $6::text[], $7::text[], $8::text
WHERE ${s}.outbox_enqueue_allowed($9::integer, $10::integer[], $11::integer[], '${when}', ${guarded ? '$12::text, $13::text' : 'NULL, NULL'})${fresh ? '' : '\nON CONFLICT (event_id) DO NOTHING'}`;

/** The enqueue's statements in a caller's transaction, each refused on another database. */
export type TxEnqueueSql = ReturnType<typeof txEnqueueSql>;

const txEnqueueSql = (s: string, fresh: boolean) => ({
  /** Where the transaction is known to be open. */
  inTx: enqueueStatement(s, 'always', { fresh }),
  /** `inTx`, unnamed, on a `pg` connection not known yet: its backend pid tells if it is direct. */
  inTxLearning: `${enqueueStatement(s, 'always', { fresh })}\nRETURNING pg_backend_pid() AS backend_pid`,
  /** Pipelined behind `probeTransaction`; writes only where it ran (after a refused probe it runs alone). */
  afterProbe: enqueueStatement(s, 'probed', { fresh }),
  /** Writes only where the transaction already wrote (its id is assigned); the row count tells. */
  afterWrite: enqueueStatement(s, 'written', { fresh }),
});

export const outboxSql = (s: string, channel: string) => ({
  /** $1..$8 the row; $9 the lock space, $10/$11 the key locks (`keyLocks`). */
  enqueue: enqueueStatement(s, 'always', { guarded: false }),
  /** `enqueue` in a caller's transaction: for an `eventId` the caller gave, and one the enqueue made. */
  enqueueInTx: { given: txEnqueueSql(s, false), fresh: txEnqueueSql(s, true) },
  /**
   * One message: refused whole outside a transaction block (25P01); inside one, marks the
   * transaction for `afterProbe` (`SET LOCAL`: gone at COMMIT or ROLLBACK).
   */
  probeTransaction: `SAVEPOINT loyalty_outbox_enqueue; RELEASE SAVEPOINT loyalty_outbox_enqueue; SET LOCAL ${PROBE_SETTING} = 'on'`,
  probeSavepoint: 'SAVEPOINT loyalty_outbox_enqueue',
  probeRelease: 'RELEASE SAVEPOINT loyalty_outbox_enqueue',
  /**
   * $1 owner, $2 limit, $3 max in flight per tenant, $4 lease ms, $5 only tenants, $6 skip
   * tenants, $7 window, $8/$9 tenants this outbox sends and how many of each; $10..$13 the
   * outcomes to record first (`record`'s $2..$5). A row per outcome recorded (`recorded`, the
   * rest null), then the claimed events in `seq` order.
   */
  recordAndClaim: `SELECT c.recorded, ${CLAIMED_COLUMNS} FROM ${s}.outbox_record_claim(
  $1::text, $2::integer, $3::integer, $4::integer, $5::text[], $6::text[], $7::integer, $8::text[], $9::integer[],
  $10::text[], $11::text[], $12::text[]::jsonb[], $13::integer[]) AS c ORDER BY (c.claimed).seq NULLS FIRST`,
  /** $1 owner, $2 event ids, $3 lease ms. Returns the ids still $1's (renewed), the only ones to send. */
  extendLease: `UPDATE ${s}.outbox SET claim_expires_at = clock_timestamp() + $3::integer * interval '1 millisecond'
WHERE event_id = ANY ($2::text[]) AND claimed_by = $1 AND ${stillPending('state')}
RETURNING event_id`,
  /** $1 owner; per outcome $2 event id, $3 kind, $4 patch, $5 retry ms; returns the ids written. */
  record: `SELECT r.id AS event_id FROM ${s}.outbox_record($1::text, $2::text[], $3::text[], $4::text[]::jsonb[], $5::integer[]) AS r(id)`,
  /** $1 event id, $2 patch. Back to `pending` (redeliver): due now, unclaimed; else the claim stays. */
  update: `UPDATE ${s}.outbox u SET
  state = coalesce(p.patch->>'state', u.state),
  attempts = coalesce((p.patch->>'attempts')::integer, u.attempts),
  first_attempt_at = CASE WHEN p.patch ? 'firstAttemptAt' THEN (p.patch->>'firstAttemptAt')::bigint ELSE u.first_attempt_at END,
  last_error = CASE WHEN p.patch ? 'lastError' THEN nullif(p.patch->'lastError', 'null'::jsonb) ELSE u.last_error END,
  due_at = CASE WHEN p.patch->>'state' = 'pending' AND u.state <> 'pending' THEN '-infinity'::timestamptz ELSE u.due_at END,
  claimed_by = CASE WHEN p.patch->>'state' = 'pending' AND u.state <> 'pending' THEN NULL ELSE u.claimed_by END,
  claim_expires_at = CASE WHEN p.patch->>'state' = 'pending' AND u.state <> 'pending' THEN NULL ELSE u.claim_expires_at END
FROM (SELECT $2::text::jsonb AS patch) AS p
WHERE u.event_id = $1 AND u.state <> 'delivered'`,
  /** $1 event ids. */
  remove: `DELETE FROM ${s}.outbox WHERE event_id = ANY ($1::text[]) AND state <> 'delivered'`,
  /** $1 owner, $2 event ids this process still sends: frees every other claim it holds. */
  releaseOrphans: `UPDATE ${s}.outbox SET claimed_by = NULL, claim_expires_at = NULL
WHERE claimed_by = $1 AND state = 'pending' AND NOT (event_id = ANY ($2::text[]))`,
  /** $1 owner, $2 ms: this store listens and its last claim found nothing. */
  markIdle: `INSERT INTO ${s}.outbox_idle_listeners (owner, idle_until)
VALUES ($1, clock_timestamp() + $2::integer * interval '1 millisecond')
ON CONFLICT (owner) DO UPDATE SET idle_until = EXCLUDED.idle_until`,
  /** $1 payload: the store's check that its `listen` connection hears the channel. */
  notifyCheck: `SELECT pg_notify('${channel}', $1::text)`,
  /** $1 owner. */
  markBusy: `DELETE FROM ${s}.outbox_idle_listeners WHERE owner = $1`,
  stops: `SELECT tenant_id, reason, since FROM ${s}.outbox_tenant_stops ORDER BY tenant_id`,
  /** $1 tenant, $2 reason, $3 since (unix ms). */
  stop: `INSERT INTO ${s}.outbox_tenant_stops (tenant_id, reason, since) VALUES ($1, $2, $3)
ON CONFLICT (tenant_id) DO UPDATE SET reason = EXCLUDED.reason, since = EXCLUDED.since`,
  resume: `DELETE FROM ${s}.outbox_tenant_stops WHERE tenant_id = $1`,
  get: `SELECT ${COLUMNS} FROM ${s}.outbox WHERE event_id = $1 AND state <> 'delivered'`,
  /** $1 state, $2 tenant or null, $3 limit. */
  list: `SELECT ${COLUMNS} FROM ${s}.outbox
WHERE state = $1 AND ($2::text IS NULL OR tenant_id = $2) ORDER BY seq LIMIT $3`,
  counts: `SELECT state, count(*)::integer AS n FROM ${s}.outbox WHERE state <> 'delivered' GROUP BY state`,
  /** Two branches, each matching a partial index, so the delivered rows are never scanned. */
  countsByTenant: `SELECT tenant_id, state, count(*)::integer AS n, min(enqueued_at) AS oldest FROM (
  SELECT tenant_id, state, enqueued_at FROM ${s}.outbox WHERE state = 'pending'
  UNION ALL
  SELECT tenant_id, state, enqueued_at FROM ${s}.outbox WHERE state IN ('parked', 'dead', 'expired')
) AS live GROUP BY tenant_id, state ORDER BY tenant_id`,
  /** $1 retention ms, $2 batch size. By ctid: one small batch, never the whole table. */
  cleanup: `DELETE FROM ${s}.outbox WHERE ctid IN (
  SELECT ctid FROM ${s}.outbox
  WHERE state = 'delivered' AND delivered_at < now() - make_interval(secs => $1::float8 / 1000)
  ORDER BY delivered_at LIMIT $2 FOR UPDATE SKIP LOCKED
)`,
});
