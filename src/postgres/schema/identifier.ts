import { PostgresStoreError } from '../errors.js';

/** Lower-case letters, digits and `_`, starting with a letter or `_`: never needs escaping. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
/** PostgreSQL's own schemas: tables created there would mix with the catalogue. */
const SYSTEM_SCHEMA = /^(pg_|information_schema$)/;

/**
 * Checks a schema name and returns it quoted for SQL. Names are written into DDL and statements,
 * which cannot take them as parameters, so anything but a plain identifier is refused, and so
 * are PostgreSQL's own schemas.
 *
 * @throws {PostgresStoreError} `INVALID_SCHEMA`
 */
export function quoteSchema(schema: unknown, what: string): string {
  if (typeof schema !== 'string' || !IDENTIFIER.test(schema)) {
    throw new PostgresStoreError(
      'INVALID_SCHEMA',
      `${what}: schema must be a plain identifier (a-z, 0-9, _; at most 63 characters, not starting with a digit), ` +
        `got ${typeof schema === 'string' ? JSON.stringify(schema.slice(0, 80)) : typeof schema}`,
    );
  }
  if (SYSTEM_SCHEMA.test(schema)) {
    throw new PostgresStoreError(
      'INVALID_SCHEMA',
      `${what}: schema "${schema}" belongs to PostgreSQL itself; use a schema of your own, such as 'loyalty'`,
    );
  }
  return `"${schema}"`;
}
