import type { SchemaStep } from './schema-step.js';
import { SCHEMA_STEPS } from './steps.js';

/** Creates the schema and the table that records which steps ran. */
export const preambleStatements = (s: string): string[] => [
  `CREATE SCHEMA IF NOT EXISTS ${s}`,
  `CREATE TABLE IF NOT EXISTS ${s}.schema_version (
  version     integer     PRIMARY KEY,
  description text        NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now()
)`,
];

/** What records a step as applied (the version and description are literals from steps.ts). */
export const recordStatement = (s: string, step: SchemaStep): string =>
  `INSERT INTO ${s}.schema_version (version, description) VALUES (${step.version}, '${step.description.replaceAll("'", "''")}') ON CONFLICT (version) DO NOTHING`;

/** The latest schema version this package knows. */
export const LATEST_SCHEMA_VERSION = Math.max(...SCHEMA_STEPS.map((step) => step.version));

/**
 * The whole schema as one SQL file, exactly the statements `migrate` runs on an empty database,
 * for teams that apply migrations with their own tool.
 */
export function renderSchemaSql(schema = 'loyalty'): string {
  const s = `"${schema}"`;
  const parts = [
    `-- loyalty-partner-sdk PostgreSQL schema, version ${LATEST_SCHEMA_VERSION}, for schema "${schema}".`,
    '-- Generated from src/postgres/schema/steps.ts; migrate(db, { schema }) runs the same statements',
    '-- under an advisory lock. Replace "loyalty" to use another schema. Run it in one transaction.',
    '',
    ...preambleStatements(s).map((statement) => `${statement};`),
  ];
  for (const step of SCHEMA_STEPS) {
    parts.push('', `-- step ${step.version}: ${step.description}`);
    for (const statement of step.statements(s)) parts.push(`${statement};`);
    parts.push(`${recordStatement(s, step)};`);
  }
  return `${parts.join('\n')}\n`;
}
