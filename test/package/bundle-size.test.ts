import { existsSync, readdirSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The size budgets of the Web builds, measured on what users install: the BUILT files of dist/
// (npm test builds before this runs), bundled for a browser with zod and uuid resolved from
// node_modules, minified, then gzipped at level 9. Deterministic: sizes, never timings.
// Counted: what a receiver that does not defer loads, the lazily loaded parser included; the
// deferred runner, which only `receiver.start()` imports, is a chunk of its own that a bundler
// which splits code never loads for it (measured apart, and checked for node:* all the same).
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
/** The deferred runner's chunk: left out of a bundle (an import kept as it is), or bundled alone. */
const RUNNER_CHUNK = /\/deferred-runner-\w+\.js$/;
const leaveRunnerOut: Plugin = {
  name: 'leave-the-runner-out',
  setup(b) {
    b.onResolve({ filter: RUNNER_CHUNK }, ({ path }) => ({ path, external: true }));
  },
};

async function browserBundle(files: readonly string[]): Promise<Bundle> {
  const result = await build({
    stdin: { contents: files.map((file) => `export * from './${file}';`).join('\n'), resolveDir: root },
    plugins: files.length === 1 && RUNNER_CHUNK.test(files[0]!) ? [] : [leaveRunnerOut],
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    external: NODE_BUILTINS,
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!;
  const metafile: Metafile = result.metafile;
  const imports = Object.values(metafile.inputs).flatMap((input) => input.imports);
  return {
    gzipped: gzipSync(code.contents, { level: 9 }).byteLength,
    minified: code.contents.byteLength,
    inputs: Object.keys(metafile.inputs),
    externals: [
      ...new Set(
        imports
          .filter((imported) => imported.external && !RUNNER_CHUNK.test(imported.path))
          .map(({ path }) => path),
      ),
    ],
    text: code.text,
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
    const runner = readdirSync(`${root}dist`).filter((file) => RUNNER_CHUNK.test(`/${file}`));
    expect(runner).toHaveLength(1);
    const bundle = await browserBundle([`dist/${runner[0]}`]);
    measured.push(
      `  ${'the deferred runner (receiver.start())'.padEnd(40)} ${(bundle.gzipped / KB).toFixed(2).padStart(6)} KB`,
    );
    expect(nodeOnlyFindings(bundle)).toEqual([]);
  });

  it('would notice undici and node:* in a bundle: the Node build of the root holds both', async () => {
    const findings = nodeOnlyFindings(await browserBundle(['dist/index.node.js']));
    expect(findings.some((finding) => finding.includes('undici'))).toBe(true);
    expect(findings.some((finding) => NODE_BUILTINS.includes(finding))).toBe(true);
  });
});
