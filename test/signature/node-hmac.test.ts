import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { nodeHmac } from '../../src/platform-node/node-hmac.js';

const expected = (secret: string, t: string, body: string | Uint8Array) =>
  createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');

describe('nodeHmac (the Node build)', () => {
  it('MACs `<t>.` and a body of bytes or of text as node:crypto does, as lowercase hex', () => {
    const mac = expected('k', '17', 'é{}');
    expect(nodeHmac.mac('k', '17', 'é{}')).toBe(mac);
    expect(nodeHmac.mac('k', '17', Buffer.from('é{}'))).toBe(mac);
  });

  it('equals createHmac for any secret (longer than a block too), timestamp and body', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200, unit: 'binary', size: 'max' }),
        fc.stringMatching(/^\d{1,15}$/),
        fc.oneof(fc.string({ maxLength: 3000, unit: 'binary' }), fc.uint8Array({ maxLength: 3000 })),
        (secret, t, body) => {
          expect(nodeHmac.mac(secret, t, body)).toBe(expected(secret, t, body));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('hashes a secret longer than the 64-byte block first, as HMAC does, and pads a shorter one', () => {
    for (const secret of ['s'.repeat(63), 's'.repeat(64), 's'.repeat(65), 'é'.repeat(40), 'x'.repeat(500)]) {
      expect(nodeHmac.mac(secret, '1763630000', '{}')).toBe(expected(secret, '1763630000', '{}'));
    }
  });

  it('encodes lone surrogates in a text body as U+FFFD, as createHmac does', () => {
    expect(nodeHmac.mac('k', '1', 'a\ud800b')).toBe(expected('k', '1', 'a\ud800b'));
  });

  it('stays exact for bodies larger than its buffer, and for small ones after them', () => {
    const big = Buffer.alloc(300 * 1024, 0x61);
    const middle = 'é'.repeat(20_000);
    for (const body of [big, middle, '{}', big.subarray(7, 9000), '{}']) {
      expect(nodeHmac.mac('whsec_x', '1763630000', body)).toBe(expected('whsec_x', '1763630000', body));
    }
  });

  it('MACs a byte view into a larger buffer over the view only', () => {
    const whole = Buffer.from('xx{"a":1}yy');
    const view = new Uint8Array(whole.buffer, whole.byteOffset + 2, 7);
    expect(nodeHmac.mac('k', '5', view)).toBe(expected('k', '5', '{"a":1}'));
  });

  it('stays exact for every secret while its key cache fills up and starts over', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        const secret = `whsec_tenant_${i}`;
        expect(nodeHmac.mac(secret, '1', 'x')).toBe(expected(secret, '1', 'x'));
      }
    }
  });

  it('passes a string body through, for Node to encode natively', () => {
    expect(nodeHmac.text!('é')).toBe('é');
  });

  it('falls back to createHmac where node:crypto has no one-shot hash (Bun, Deno)', async () => {
    vi.resetModules();
    // node:crypto is loaded on the first MAC, through process.getBuiltinModule.
    const real = process.getBuiltinModule('node:crypto');
    const load = vi
      .spyOn(process, 'getBuiltinModule')
      .mockImplementation(((id: string) =>
        id === 'node:crypto' ? { ...real, hash: undefined } : real) as typeof process.getBuiltinModule);
    try {
      const { nodeHmac: withoutHash } = await import('../../src/platform-node/node-hmac.js');
      expect(withoutHash).not.toBe(nodeHmac);
      expect(withoutHash.mac('k', '17', 'é{}')).toBe(expected('k', '17', 'é{}'));
      expect(load).toHaveBeenCalledWith('node:crypto');
    } finally {
      load.mockRestore();
      vi.resetModules();
    }
  });
});
