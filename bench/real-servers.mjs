/**
 * The test suite's real servers (test/support/real-servers.ts: PostgreSQL and Redis started in a
 * temporary directory, on loopback), compiled for a bench process (benches run without a
 * TypeScript loader). `cleanUp` removes the compiled file; each server is stopped by its own
 * `stop()`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

export async function realServers() {
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-servers-'));
  const outfile = join(dir, 'real-servers.mjs');
  await build({
    entryPoints: [fileURLToPath(new URL('../test/support/real-servers.ts', import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
  });
  const module = await import(pathToFileURL(outfile).href);
  return {
    startPostgres: module.startPostgres,
    startRedis: module.startRedis,
    startPgBouncer: module.startPgBouncer,
    cleanUp: () => rm(dir, { recursive: true, force: true }),
  };
}
