import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { webCryptoHmac } from '../../src/signature/web-crypto-hmac.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
});

describe('webCryptoHmac', () => {
  it('MACs `<t>.` + body as node:crypto does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.nat(),
        fc.uint8Array(),
        async (secret, t, body) => {
          const mac = await webCryptoHmac.mac(secret, `${t}`, body);
          expect(mac).toBe(createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('imports each secret once and keeps no more than 32 keys', async () => {
    const importKey = vi.spyOn(globalThis.crypto.subtle, 'importKey');
    const body = new Uint8Array([1]);
    await webCryptoHmac.mac('cached-secret', '1', body);
    await webCryptoHmac.mac('cached-secret', '2', body);
    expect(importKey).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 32; i++) await webCryptoHmac.mac(`tenant-${i}`, '1', body);
    expect(importKey).toHaveBeenCalledTimes(33);
    // The map filled up and started over, so the first secret is imported again.
    await webCryptoHmac.mac('cached-secret', '3', body);
    expect(importKey).toHaveBeenCalledTimes(34);
  });

  it('reaches globalThis.crypto only when called, so a runtime without it fails per call, not on import', async () => {
    vi.stubGlobal('crypto', undefined);
    await expect(webCryptoHmac.mac('a-secret-never-seen', '1', new Uint8Array())).rejects.toThrow(TypeError);
  });
});
