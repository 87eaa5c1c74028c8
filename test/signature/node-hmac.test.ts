import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeHmac } from '../../src/platform-node/node-hmac.js';

describe('nodeHmac (the Node build)', () => {
  it('MACs `<t>.` and a body of bytes or of text as node:crypto does', () => {
    const expected = createHmac('sha256', 'k').update('17.').update('é{}').digest('hex');
    expect(Buffer.from(nodeHmac.mac('k', '17', 'é{}')).toString('hex')).toBe(expected);
    expect(Buffer.from(nodeHmac.mac('k', '17', Buffer.from('é{}'))).toString('hex')).toBe(expected);
  });

  it('stays exact for every secret while its key cache fills up and starts over', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        const secret = `whsec_tenant_${i}`;
        expect(Buffer.from(nodeHmac.mac(secret, '1', 'x')).toString('hex')).toBe(
          createHmac('sha256', secret).update('1.').update('x').digest('hex'),
        );
      }
    }
  });

  it('passes a string body through, for OpenSSL to encode natively', () => {
    expect(nodeHmac.text!('é')).toBe('é');
  });

  it('decodes exactly 64 hex digits of either case, and nothing else, natively', () => {
    const good = '0a'.repeat(32);
    expect([...nodeHmac.fromHex!(good)!]).toEqual(Array(32).fill(10));
    expect([...nodeHmac.fromHex!(good.toUpperCase())!]).toEqual(Array(32).fill(10));
    for (const bad of [
      good.slice(2),
      `${good}00`,
      `${good.slice(0, 63)}g`,
      `g${good.slice(1)}`,
      `${good.slice(0, 62)}é0`,
    ]) {
      expect(nodeHmac.fromHex!(bad)).toBeUndefined();
    }
  });

  it('compares with timingSafeEqual', () => {
    expect(nodeHmac.equal(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(nodeHmac.equal(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
  });
});
