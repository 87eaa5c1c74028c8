import pg from 'pg';

/**
 * A pg pool on `url` that counts the statements it runs by kind: each is counted under the first
 * kind whose test its text passes (if any), then run as it came.
 */
export function countingPool<K extends string>(
  url: string,
  max: number,
  kinds: Record<K, (text: string) => boolean>,
) {
  const statements = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, 0])) as Record<K, number>;
  const tests = Object.entries(kinds) as [K, (text: string) => boolean][];
  class CountingPool extends pg.Pool {
    // pg's query has many overloads: counted, then passed on as they came.
    override query(...args: any[]): any {
      const text: string = typeof args[0] === 'string' ? args[0] : args[0].text;
      const kind = tests.find(([, test]) => test(text))?.[0];
      if (kind) statements[kind] += 1;
      return (super.query as any)(...args);
    }
  }
  return { pool: new CountingPool({ connectionString: url, max }), statements };
}
