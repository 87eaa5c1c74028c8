-- loyalty-partner-sdk PostgreSQL schema, version 1, for schema "loyalty".
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
