import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchemaSql } from '../../src/postgres/schema/render.js';

// The stores take the user's client; the built entries (code and types) must import no driver, so
// that installing `pg` without `ioredis` (or neither, with only the types) works. Walks every
// file an entry imports, through its chunks. Needs `npm run build` (npm test runs it).
const dist = resolve(import.meta.dirname, '../../dist');
const DRIVERS = ['pg', 'pg-pool', 'postgres', 'ioredis', 'redis', '@redis/client', '@types/pg'];
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;

function imported(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const visit = (path: string) => {
    // A declaration file names its siblings by their .js name.
    const file = existsSync(path) ? path : path.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts');
    if (seen.has(file)) return;
    // Without comments: the TSDoc examples import drivers, as a user's code does.
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/^\s*\/\/.*$/gm, '');
    const specifiers = [...code.matchAll(SPECIFIER)].map((m) => m[1]!);
    seen.set(file, specifiers);
    for (const specifier of specifiers) {
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
    }
  };
  visit(join(dist, entry));
  return seen;
}

describe('the built postgres and redis entries', () => {
  for (const entry of [
    'postgres.js',
    'postgres.cjs',
    'postgres.d.ts',
    'redis.js',
    'redis.cjs',
    'redis.d.ts',
  ]) {
    it(`${entry} imports no database driver, at run time or in its types`, () => {
      expect(existsSync(join(dist, entry)), 'dist/ is missing: run `npm run build` first').toBe(true);
      const bare = [...imported(entry).values()]
        .flat()
        .filter((s) => !s.startsWith('.') && !s.startsWith('node:'));
      expect(bare.filter((s) => DRIVERS.includes(s) || DRIVERS.some((d) => s.startsWith(`${d}/`)))).toEqual(
        [],
      );
    });
  }

  it('ships the schema file that the exports map names', () => {
    const pkg = JSON.parse(readFileSync(join(dist, '../package.json'), 'utf8'));
    expect(pkg.exports['./postgres/schema.sql']).toBe('./dist/postgres/schema.sql');
    expect(readFileSync(join(dist, 'postgres/schema.sql'), 'utf8')).toBe(renderSchemaSql('loyalty'));
  });
});
