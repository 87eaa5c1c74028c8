import { existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The size budgets of the Web builds, measured on what users install: the BUILT files of dist/
// (npm test builds before this runs), bundled for a browser with zod and uuid resolved from
// node_modules, minified, then gzipped at level 9. Deterministic: sizes, never timings.
// Counted: what a receiver that does not defer loads, the lazily loaded parser included; the
// deferred runner, which only `receiver.start()` imports, is a chunk of its own a bundler that
// splits code never loads for it (checked for node:* all the same).
const root = fileURLToPath(new URL('../../', import.meta.url));
const KB = 1024;
// tsup writes Node built-ins without the `node:` prefix (`from 'crypto'`), so both spellings count.
const NODE_BUILTINS = [...builtinModules, ...builtinModules.map((name) => `node:${name}`), 'node:*'];

/** Budget in bytes of each Web entry, min+gzip, with everything it imports. */
const BUDGETS = {
  'loyalty-partner-sdk/signature': { files: ['dist/signature.js'], bytes: 2 * KB },
  'loyalty-partner-sdk/webhooks': { files: ['dist/webhooks.js'], bytes: 24 * KB },
  'loyalty-partner-sdk/fetch': { files: ['dist/fetch.js'], bytes: 24 * KB },
  // The App Router handler runs on Next.js's edge runtime too.
  'loyalty-partner-sdk/next': { files: ['dist/next.js'], bytes: 24 * KB },
  // fetchHandler takes a receiver made by /webhooks: a Worker ships both.
  'a Worker: /webhooks and /fetch together': { files: ['dist/webhooks.js', 'dist/fetch.js'], bytes: 28 * KB },
  'loyalty-partner-sdk (client on fetch)': { files: ['dist/index.js'], bytes: 30 * KB },
} as const;

interface Bundle {
  gzipped: number;
  minified: number;
  /** Files esbuild read (node_modules paths included) and the modules it left external. */
  inputs: string[];
  externals: string[];
  text: string;
}

/**
 * Bundles built files for a browser, as an app importing them would. Node built-ins are left
 * external instead of failing the build, so that a Node import shows up here as a finding (and
 * the negative control can see it).
 */
async function browserBundle(files: readonly string[]): Promise<Bundle> {
  const result = await build({
    stdin: { contents: files.map((file) => `export * from './${file}';`).join('\n'), resolveDir: root },
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: NODE_BUILTINS,
    splitting: true,
    outdir: 'bundle-size-out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const metafile: Metafile = result.metafile;
  const byPath = new Map(result.outputFiles.map((file) => [relative(root, file.path), file]));
  // From the entry, every chunk it imports, statically or lazily, except the runner's.
  const loaded = new Set<string>();
  const visit = (path: string) => {
    if (loaded.has(path)) return;
    loaded.add(path);
    for (const { path: next } of metafile.outputs[path]!.imports) {
      if (!/deferred-runner/.test(metafile.outputs[next]?.entryPoint ?? '')) visit(next);
    }
  };
  visit(Object.keys(metafile.outputs).find((path) => metafile.outputs[path]!.entryPoint === '<stdin>')!);
  const code = Buffer.concat([...loaded].map((path) => byPath.get(path)!.contents));
  const imports = Object.values(metafile.inputs).flatMap((input) => input.imports);
  return {
    gzipped: gzipSync(code, { level: 9 }).byteLength,
    minified: code.byteLength,
    inputs: Object.keys(metafile.inputs),
    externals: [...new Set(imports.filter((imported) => imported.external).map(({ path }) => path))],
    text: result.outputFiles.map((file) => file.text).join('\n'),
  };
}

/** Every way a Node-only dependency can show in a bundle: an input, an external, the output text. */
function nodeOnlyFindings(bundle: Bundle): string[] {
  return [
    ...bundle.inputs.filter(
      (input) => /(^|\/)node_modules\/undici\//.test(input) || input.startsWith('node:'),
    ),
    ...bundle.externals,
    ...(bundle.text.match(/["']node:[\w/]+["']|\bundici\b/g) ?? []),
  ];
}

const measured: string[] = [];

beforeAll(() => {
  if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run `npm run build` first');
});

afterAll(() => {
  if (measured.length) console.log(`Web bundles, min+gzip (level 9):\n${measured.join('\n')}`);
});

describe('the Web builds in dist/, bundled for a browser', () => {
  it.each(Object.entries(BUDGETS).map(([name, budget]) => [name, budget.bytes / KB, budget] as const))(
    '%s is at most %i KB min+gzip and holds no node:* module and no undici',
    async (name, _kb, { files, bytes }) => {
      const bundle = await browserBundle(files);
      measured.push(
        `  ${name.padEnd(40)} ${(bundle.gzipped / KB).toFixed(2).padStart(6)} KB of ${bytes / KB} KB` +
          ` (${(bundle.minified / KB).toFixed(1)} KB minified)`,
      );
      expect(nodeOnlyFindings(bundle)).toEqual([]);
      expect(bundle.gzipped).toBeLessThanOrEqual(bytes);
    },
  );

  it('leaves the deferred runner to a chunk of its own, which only receiver.start() loads', async () => {
    const result = await build({
      entryPoints: ['dist/webhooks.js'],
      absWorkingDir: root,
      bundle: true,
      format: 'esm',
      platform: 'browser',
      splitting: true,
      outdir: 'bundle-size-out',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const { outputs } = result.metafile;
    const lazily = Object.values(outputs).flatMap((output) =>
      output.imports.filter((imported) => imported.kind === 'dynamic-import').map(({ path }) => path),
    );
    const runner = [...new Set(lazily)].filter((path) =>
      /deferred-runner/.test(outputs[path]!.entryPoint ?? ''),
    );
    expect(runner).toHaveLength(1);
  });

  it('would notice undici and node:* in a bundle: the Node build of the root holds both', async () => {
    const findings = nodeOnlyFindings(await browserBundle(['dist/index.node.js']));
    expect(findings.some((finding) => finding.includes('undici'))).toBe(true);
    expect(findings.some((finding) => NODE_BUILTINS.includes(finding))).toBe(true);
  });
});
