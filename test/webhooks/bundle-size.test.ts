import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const BUDGET_BYTES = 24 * 1024;
const root = fileURLToPath(new URL('../../', import.meta.url));

/** Bundles source for a browser, as an edge or browser build of a user's app would. */
async function browserBundle(source: string) {
  const result = await build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { gzipped: gzipSync(code).byteLength, inputs: Object.keys(result.metafile.inputs) };
}

describe('the edge entry points', () => {
  it.each([
    ['loyalty-partner-sdk/webhooks', "export * from './src/webhooks/index.ts';"],
    ['loyalty-partner-sdk/fetch', "export * from './src/adapters/fetch.ts';"],
    ['loyalty-partner-sdk/next', "export * from './src/adapters/next.ts';"],
    [
      'a Worker using webhooks and fetch together',
      "export * from './src/webhooks/index.ts'; export * from './src/adapters/fetch.ts';",
    ],
  ])('bundle %s for the browser within 24 KB min+gzip, without node:* or undici', async (_name, source) => {
    // platform 'browser' fails the build on any node:* import, so building at all proves the first.
    const { gzipped, inputs } = await browserBundle(source);
    expect(inputs.filter((input) => /node_modules\/(undici|express|hono)\//.test(input))).toEqual([]);
    expect(inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });

  it('would notice a node:* import (the check above can fail)', async () => {
    await expect(
      browserBundle("import { createHmac } from 'node:crypto'; export { createHmac };"),
    ).rejects.toThrow();
  });
});
