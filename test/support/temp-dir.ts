import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';

/**
 * A temporary directory named `<prefix>…`, made fresh for each test of the calling suite
 * (`each`) or once for all of them (`all`), and removed after. The returned function gives its
 * path inside a test or a later hook.
 */
export function useTempDir(prefix: string, scope: 'each' | 'all' = 'each'): () => string {
  let dir: string | undefined;
  (scope === 'each' ? beforeEach : beforeAll)(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
  });
  (scope === 'each' ? afterEach : afterAll)(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  return () => {
    if (!dir)
      throw new Error(
        `the temporary directory is made before ${scope === 'each' ? 'each test' : 'the suite'}`,
      );
    return dir;
  };
}
