import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacSha256, pureJsHmac, sha256 } from '../../src/signature/sha256.js';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const nodeSha = (...chunks: Uint8Array[]) => {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(chunk);
  return hash.digest('hex');
};

describe('the pure-JS sha256', () => {
  it('gives the FIPS 180-4 digests of "", "abc" and the 448-bit message', () => {
    const text = (s: string) => new TextEncoder().encode(s);
    expect(hex(sha256(text('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256(text('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256(text('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('agrees with node:crypto at every length around the block and padding boundaries', () => {
    const lengths = [...Array.from({ length: 140 }, (_, i) => i), 191, 192, 193, 1023, 1024, 1025, 4096 + 55];
    for (const length of lengths) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 255);
      expect(hex(sha256(data)), `length ${length}`).toBe(nodeSha(data));
    }
  });

  it('agrees with node:crypto for arbitrary bytes cut into arbitrary chunks', () => {
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ maxLength: 150 }), { maxLength: 5 }), (chunks) => {
        expect(hex(sha256(...chunks))).toBe(nodeSha(...chunks));
      }),
      { numRuns: 500 },
    );
  });
});

describe('the pure-JS hmacSha256', () => {
  it('agrees with node:crypto for keys shorter than, equal to and longer than a block', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 20 }),
        fc.uint8Array({ maxLength: 300 }),
        (key, prefix, body) => {
          expect(hex(hmacSha256(key, prefix, body))).toBe(
            createHmac('sha256', key).update(prefix).update(body).digest('hex'),
          );
        },
      ),
      { numRuns: 500 },
    );
    for (const length of [63, 64, 65, 128]) {
      const key = new Uint8Array(length).fill(7);
      expect(hex(hmacSha256(key, new Uint8Array(), new Uint8Array([1])))).toBe(
        createHmac('sha256', key)
          .update(new Uint8Array([1]))
          .digest('hex'),
      );
    }
  });

  it('signs `<t>.` + body with the UTF-8 bytes of a string secret, as node:crypto does', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.nat(),
        fc.uint8Array(),
        (secret, t, body) => {
          expect(hex(pureJsHmac.mac(secret, `${t}`, body))).toBe(
            createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});
