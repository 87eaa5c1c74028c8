/**
 * One numbered step of the schema. `s` is the quoted schema name (`"loyalty"`). Each statement is
 * one SQL statement (postgres.js runs one statement per query) and is idempotent where it can be
 * (`IF NOT EXISTS`), so a step interrupted before its version was recorded can run again.
 */
export interface SchemaStep {
  readonly version: number;
  readonly description: string;
  statements(s: string): readonly string[];
}
