// The Web build of `loyalty-partner-sdk/signature` as an edge runtime or a browser gets it: bundled
// by esbuild for the browser, then run in a node:vm context that has Web Crypto and TextEncoder
// and nothing else from Node (no require, no process, no Buffer). Its size budget is checked on
// the built file by test/package/bundle-size.test.ts.
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, vectors } from './vectors.js';

type Sdk = typeof import('loyalty-partner-sdk/signature');

const entry = new URL('../../src/signature/index.ts', import.meta.url).pathname;
/** `esbuild --bundle --minify --platform=browser --format=esm`, what a bundler makes of it. */
let esm = '';
/** The same as a script, to run in a node:vm context (which has no ES module loader by default). */
let code = '';

beforeAll(async () => {
  const bundle = async (format: 'esm' | 'iife') => {
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      minify: true,
      platform: 'browser',
      format,
      globalName: 'loyaltySignature',
      write: false,
      logLevel: 'silent',
    });
    return result.outputFiles[0]!.text;
  };
  [esm, code] = await Promise.all([bundle('esm'), bundle('iife')]);
});

/** A fresh context with only the globals an edge runtime certainly has for this package. */
function edgeRuntime(globals: Record<string, unknown>): { sdk: Sdk; typeOf: (name: string) => string } {
  const context = createContext(globals);
  runInContext(code, context);
  return {
    sdk: (context as { loyaltySignature: Sdk }).loyaltySignature,
    typeOf: (name) => runInContext(`typeof ${name}`, context) as string,
  };
}

const valid = vectors.verify.find((vector) => vector.name === 'valid')!;
const expired = vectors.verify.find((vector) => vector.name === '301 s old')!;
const unicode = vectors.sign.find((vector) => vector.name === 'unicode body')!;

describe('the browser bundle of loyalty-partner-sdk/signature', () => {
  it('imports no node: module, calls no require and holds no undici', () => {
    for (const text of [esm, code]) {
      expect(text).not.toMatch(/["'`]node:/);
      expect(text).not.toMatch(/\brequire\(/);
      expect(text).not.toMatch(/undici/);
    }
  });

  it('verifies, signs and rejects in a context with only crypto and TextEncoder', async () => {
    const { sdk, typeOf } = edgeRuntime({ crypto: globalThis.crypto, TextEncoder });
    for (const name of ['require', 'process', 'Buffer', 'module', 'TextDecoder'])
      expect(typeOf(name)).toBe('undefined');

    const options = { now: valid.now };
    await expect(
      sdk.verifySignatureAsync(bodyOf(valid), valid.header, valid.secrets, options),
    ).resolves.toEqual({ timestamp: 1763630000, secretIndex: 0 });
    const text = Buffer.from(unicode.bodyHex, 'hex').toString('utf8');
    await expect(sdk.signPayloadAsync(text, unicode.secrets, { timestamp: unicode.timestamp })).resolves.toBe(
      unicode.header,
    );

    // Errors made inside the context are of its own realm: compare by shape, not instanceof.
    await expect(
      sdk.verifySignatureAsync(bodyOf(expired), expired.header, expired.secrets, { now: expired.now }),
    ).rejects.toMatchObject({ name: 'SignatureVerificationError', code: 'SIGNATURE_EXPIRED' });
    await expect(
      sdk.verifySignatureAsync(bodyOf(valid), `${valid.header!.slice(0, -1)}0`, valid.secrets, options),
    ).rejects.toMatchObject({ code: 'INVALID_SIGNATURE', reason: 'no_match' });
  });

  it('answers a call to a synchronous function with the name of the asynchronous one', () => {
    const { sdk } = edgeRuntime({ crypto: globalThis.crypto, TextEncoder });
    expect(() => sdk.verifySignature(bodyOf(valid), valid.header, valid.secrets)).toThrow(
      expect.objectContaining({
        name: 'TypeError',
        message: expect.stringContaining('use verifySignatureAsync'),
      }),
    );
    expect(() => sdk.signPayload('{}', 'whsec_a')).toThrow(expect.objectContaining({ name: 'TypeError' }));
  });
});
