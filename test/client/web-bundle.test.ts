import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('the Web build of the client', () => {
  it('bundles for a browser with no undici, no node:* module and no platform-node file', async () => {
    const result = await build({
      entryPoints: [new URL('../../src/index.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.includes('src/client/loyalty-client.ts'))).toBe(true);
    expect(inputs.filter((path) => /undici|platform-node|^node:/.test(path))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    expect(code).not.toMatch(/from ["']node:|require\(["']node:|process\.versions/);
  });
});
