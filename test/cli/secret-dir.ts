import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/**
 * A temporary folder of one suite, removed after it, holding `secret` in `secretFile` (with one
 * final newline, as an editor leaves it): the `--secret-file` of check-receiver and trigger.
 */
export function secretDir(prefix: string, secret: string): { dir: string; secretFile: string } {
  const paths = { dir: '', secretFile: '' };
  beforeAll(async () => {
    paths.dir = await mkdtemp(join(tmpdir(), prefix));
    paths.secretFile = join(paths.dir, 'secret');
    await writeFile(paths.secretFile, `${secret}\n`);
  });
  afterAll(() => rm(paths.dir, { recursive: true, force: true }));
  return paths;
}
