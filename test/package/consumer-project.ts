import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root: the package as `npm pack` would see it (needs `npm run build`). */
export const packageRoot = resolve(import.meta.dirname, '../..');

/**
 * A consumer project outside the repository whose node_modules holds the package, so Node
 * resolves it through the `exports` map exactly as an installed copy. Programs run with the
 * Node.js running the tests (`process.execPath`), so `npm run test:node-versions` covers each line.
 */
export interface ConsumerProject {
  /** Writes `file` into the project and runs it with Node; returns its trimmed stdout. */
  run(file: string, source: string): string;
  remove(): void;
}

export function createConsumerProject(): ConsumerProject {
  if (!existsSync(join(packageRoot, 'dist/index.node.js')))
    throw new Error('dist/ is missing: run `npm run build` first');
  const dir = mkdtempSync(join(tmpdir(), 'loyalty-consumer-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(packageRoot, join(dir, 'node_modules', 'loyalty-partner-sdk'), 'dir');
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  return {
    run(file, source) {
      writeFileSync(join(dir, file), source);
      return execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' }).trim();
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
