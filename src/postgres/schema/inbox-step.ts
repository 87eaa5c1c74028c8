import type { SchemaStep } from './schema-step.js';

/**
 * The table of received events: `inbox_deliveries` (step 3, `legacy`: deferred receipt only, so
 * the signature's facts are always there) and `inbox_events` (step 6), its successor.
 */
export const deliveriesTable = (table: string, legacy: boolean): string => {
  const known = (type: string) => (legacy ? `${type.padEnd(11)} NOT NULL` : type);
  return `CREATE TABLE IF NOT EXISTS ${table} (
  event_id            text        PRIMARY KEY,
  event_type          text        NOT NULL,
  tenant_id           text        NOT NULL DEFAULT '',
  state               text        NOT NULL CHECK (state IN ('pending', 'handled', 'dead', 'parked')),
  raw_body            text,
  correlation_id      ${known('text')},
  signature_timestamp ${known('bigint')},
  secret_index        ${known('int')},
  received_at         timestamptz NOT NULL${legacy ? '' : ' DEFAULT now()'},
  attempts            int         NOT NULL DEFAULT 0,
  next_attempt_at     timestamptz NOT NULL DEFAULT now(),
  claimed_by          text,
  lease_until         timestamptz,
  last_error          text,
  settled_at          timestamptz
) WITH (fillfactor = 80)`;
};

/**
 * Step 6: one record per event id (`inbox_events`) in place of `inbox` (step 1) and
 * `inbox_deliveries` (step 3), their rows copied under a lock. For a rolling deploy, while the old
 * tables hold rows, triggers copy every write of either version to the other
 * (docs/operating-in-production.md); a new installation gets none, and the old tables are dropped.
 */
export const INBOX_EVENTS_STEP: SchemaStep = {
  version: 6,
  description: 'one inbox record per event id (inbox_events)',
  statements: (s) => {
    const t = `${s}.inbox_events`;
    const receipt = (status: string) => `CASE WHEN ${status} = 'in-progress' THEN`;
    // The columns of `inbox_deliveries`, all in `inbox_events`; `changed`: what a run changes.
    const changed = [
      'state',
      'raw_body',
      'attempts',
      'next_attempt_at',
      'claimed_by',
      'lease_until',
      'last_error',
      'settled_at',
    ];
    const columns = [
      'event_id',
      'event_type',
      'tenant_id',
      'correlation_id',
      'signature_timestamp',
      'secret_index',
      'received_at',
      ...changed,
    ];
    const all = columns.join(', ');
    return [
      // raw_body and the signature's facts are NULL while only an immediate receipt holds the
      // record; claims, leases and retries change no indexed column but state.
      deliveriesTable(t, false),
      // Claims read the due pending rows only.
      `CREATE INDEX IF NOT EXISTS inbox_events_due ON ${t} (next_attempt_at) WHERE state = 'pending'`,
      // Retention deletes old handled rows in small batches, oldest first.
      `CREATE INDEX IF NOT EXISTS inbox_events_settled ON ${t} (settled_at) WHERE state = 'handled'`,
      // list({ state }) and the per-tenant counts: one state, oldest first.
      `CREATE INDEX IF NOT EXISTS inbox_events_by_state ON ${t} (state, received_at)`,
      // The old tables' writers wait until this step commits: nothing is written between the copy
      // and the triggers.
      `LOCK TABLE ${s}.inbox, ${s}.inbox_deliveries IN SHARE ROW EXCLUSIVE MODE`,
      `INSERT INTO ${t} (${all}) SELECT ${all} FROM ${s}.inbox_deliveries ON CONFLICT (event_id) DO NOTHING`,
      // An event handled by an immediate receiver is handled, whatever the deferred table said.
      `INSERT INTO ${t} AS e (event_id, event_type, tenant_id, state, attempts, claimed_by, lease_until, received_at,
  settled_at)
SELECT event_id, event_type, tenant_id, CASE WHEN status = 'done' THEN 'handled' ELSE 'pending' END, 1,
  ${receipt('status')} 'receipt' END, ${receipt('status')} claimed_at + interval '10 minutes' END, claimed_at, done_at
FROM ${s}.inbox
ON CONFLICT (event_id) DO UPDATE SET state = 'handled', settled_at = excluded.settled_at, claimed_by = NULL,
  lease_until = NULL
WHERE excluded.state = 'handled' AND e.state <> 'handled'`,
      // What a process of the previous version writes, as the one record says it.
      `CREATE OR REPLACE FUNCTION ${s}.inbox_from_legacy() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
  IF TG_TABLE_NAME = 'inbox' THEN
    IF TG_OP = 'DELETE' THEN
      -- A released claim; handled rows past the retention go with this side's own cleanup.
      DELETE FROM ${t} WHERE event_id = OLD.event_id AND raw_body IS NULL AND state = 'pending';
      RETURN NULL;
    END IF;
    INSERT INTO ${t} (event_id, event_type, tenant_id, state, attempts, claimed_by, lease_until, received_at, settled_at)
    VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, CASE WHEN NEW.status = 'done' THEN 'handled' ELSE 'pending' END, 1,
      ${receipt('NEW.status')} 'receipt' END, ${receipt('NEW.status')} NEW.claimed_at + interval '10 minutes' END,
      NEW.claimed_at, NEW.done_at)
    ON CONFLICT (event_id) DO UPDATE SET state = excluded.state, claimed_by = excluded.claimed_by,
      lease_until = excluded.lease_until, settled_at = excluded.settled_at;
  ELSIF TG_OP <> 'DELETE' THEN
    INSERT INTO ${t} (${all}) VALUES (${columns.map((c) => `NEW.${c}`).join(', ')})
    ON CONFLICT (event_id) DO UPDATE SET ${changed.map((c) => `${c} = excluded.${c}`).join(', ')};
  END IF;
  RETURN NULL;
END
$fn$`,
      // What a process of this version writes, as the previous version reads it: a claim or a
      // handled event in \`inbox\`, and in \`inbox_deliveries\` a bodiless handled row (a
      // duplicate to its \`store\`, never claimed by its runner).
      `CREATE OR REPLACE FUNCTION ${s}.inbox_to_legacy() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF pg_trigger_depth() > 1 THEN RETURN NULL; END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM ${s}.inbox WHERE event_id = OLD.event_id;
    DELETE FROM ${s}.inbox_deliveries WHERE event_id = OLD.event_id AND raw_body IS NULL;
    RETURN NULL;
  END IF;
  INSERT INTO ${s}.inbox (event_id, event_type, tenant_id, status, claimed_at, done_at)
  VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, CASE WHEN NEW.state = 'pending' THEN 'in-progress' ELSE 'done' END,
    now(), CASE WHEN NEW.state <> 'pending' THEN now() END)
  ON CONFLICT (event_id) DO UPDATE SET status = excluded.status, claimed_at = excluded.claimed_at, done_at = excluded.done_at;
  INSERT INTO ${s}.inbox_deliveries (event_id, event_type, tenant_id, state, correlation_id, signature_timestamp,
    secret_index, received_at, settled_at)
  VALUES (NEW.event_id, NEW.event_type, NEW.tenant_id, 'handled', coalesce(NEW.correlation_id, ''),
    coalesce(NEW.signature_timestamp, 0), coalesce(NEW.secret_index, 0), NEW.received_at, now())
  ON CONFLICT (event_id) DO NOTHING;
  RETURN NULL;
END
$fn$`,
      `DO $do$
BEGIN
  IF EXISTS (SELECT 1 FROM ${s}.inbox) OR EXISTS (SELECT 1 FROM ${s}.inbox_deliveries) THEN
    CREATE OR REPLACE TRIGGER inbox_from_legacy AFTER INSERT OR UPDATE OR DELETE ON ${s}.inbox
      FOR EACH ROW EXECUTE FUNCTION ${s}.inbox_from_legacy();
    CREATE OR REPLACE TRIGGER inbox_from_legacy AFTER INSERT OR UPDATE OR DELETE ON ${s}.inbox_deliveries
      FOR EACH ROW EXECUTE FUNCTION ${s}.inbox_from_legacy();
    CREATE OR REPLACE TRIGGER inbox_to_legacy AFTER INSERT OR UPDATE OR DELETE ON ${t}
      FOR EACH ROW EXECUTE FUNCTION ${s}.inbox_to_legacy();
  ELSE
    DROP TABLE ${s}.inbox, ${s}.inbox_deliveries;
    DROP FUNCTION ${s}.inbox_from_legacy(), ${s}.inbox_to_legacy();
  END IF;
END
$do$`,
    ];
  },
};
