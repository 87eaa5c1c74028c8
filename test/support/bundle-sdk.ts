import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `loyalty-partner-sdk[/entry]` -> its source file, as tsconfig.json (and so vitest) maps it. */
const PUBLIC_NAMES: Record<string, string> = Object.fromEntries(
  Object.entries(
    JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')).compilerOptions.paths as Record<
      string,
      string[]
    >,
  ).map(([name, [file]]) => [name, join(ROOT, file!)]),
);

/**
 * Bundles public names of the SDK, taken from src/ as the tests see them, into one ESM file that a
 * child process imports: the crash and multi-process suites run real processes on the code under
 * test without a build. `exports` maps an entry (`loyalty-partner-sdk/outbox`) to the names to
 * re-export; drivers (pg, ioredis, ...) stay imports of the child's own.
 *
 * @example
 * await bundleSdk(file, { 'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore'] });
 */
export async function bundleSdk(outfile: string, exports: Record<string, readonly string[]>): Promise<void> {
  const contents = Object.entries(exports)
    .map(([entry, names]) => `export { ${names.join(', ')} } from '${entry}';`)
    .join('\n');
  await build({
    stdin: { contents, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'error',
    // Bundled CommonJS dependencies (undici) call require() on Node built-ins.
    banner: {
      js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
    },
    plugins: [
      {
        name: 'public-names',
        setup(pluginBuild) {
          pluginBuild.onResolve({ filter: /^loyalty-partner-sdk(\/[a-z]+)?$/ }, (args) => {
            const path = PUBLIC_NAMES[args.path];
            if (!path) throw new Error(`no tsconfig path for ${args.path}`);
            return { path };
          });
        },
      },
    ],
  });
}
