import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { resolved?: string; optionalDependencies?: Record<string, string> }>;
};

describe('package-lock.json', () => {
  it('records no download addresses (this machine writes it without them)', () => {
    expect(Object.entries(lock.packages).filter(([, entry]) => entry.resolved?.startsWith('http'))).toEqual(
      [],
    );
  });

  it('holds an entry for every optional dependency, so `npm ci` accepts it (scripts/complete-lockfile.mjs)', () => {
    const missing = Object.values(lock.packages).flatMap((entry) =>
      Object.keys(entry.optionalDependencies ?? {}).filter((name) => !lock.packages[`node_modules/${name}`]),
    );
    expect(missing).toEqual([]);
  });
});
