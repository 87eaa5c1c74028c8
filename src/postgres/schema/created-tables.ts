// The steps write each `CREATE TABLE` one column per line (`name type ...`), table constraints
// in capitals (`PRIMARY KEY (...)`): read from the step itself, so a new step needs no list.
const CREATE_TABLE = /^CREATE TABLE IF NOT EXISTS [^.]+\.(\w+) \(\n([\s\S]*)\n\)/;
const COLUMN = /^\s*([a-z_][a-z0-9_]*)\s/;

/** The tables `statements` create, and their columns. */
export function createdTables(statements: readonly string[]): { table: string; columns: string[] }[] {
  return statements.flatMap((statement) => {
    const match = CREATE_TABLE.exec(statement);
    if (!match?.[1] || match[2] === undefined) return [];
    const columns = match[2]
      .split('\n')
      .map((line) => COLUMN.exec(line)?.[1])
      .filter((column): column is string => column !== undefined);
    return [{ table: match[1], columns }];
  });
}
