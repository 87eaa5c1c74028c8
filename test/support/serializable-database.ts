import type pg from 'pg';

/**
 * Creates database `name`, with SERIALIZABLE as its default isolation, on the server at `url`
 * (through `admin`, connected there): resolves with the new database's URL.
 */
export async function createSerializableDatabase(admin: pg.Pool, url: string, name: string): Promise<string> {
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.query(`ALTER DATABASE ${name} SET default_transaction_isolation = 'serializable'`);
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.href;
}
