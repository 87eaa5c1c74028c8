import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeHmac } from '../../src/platform-node/node-hmac.js';

const hexOf = (mac: Buffer) => nodeHmac.toHex!(mac);

describe('nodeHmac (the Node build)', () => {
  it('MACs `<t>.` and a body of bytes or of text as node:crypto does', () => {
    const expected = createHmac('sha256', 'k').update('17.').update('é{}').digest('hex');
    expect(hexOf(nodeHmac.mac('k', '17', 'é{}'))).toBe(expected);
    expect(hexOf(nodeHmac.mac('k', '17', Buffer.from('é{}')))).toBe(expected);
  });

  it('holds a digest as its 32 bytes', () => {
    const mac = nodeHmac.mac('k', '17', '{}');
    expect(mac).toEqual(createHmac('sha256', 'k').update('17.{}').digest());
  });

  it('stays exact for every secret while its key cache fills up and starts over', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        const secret = `whsec_tenant_${i}`;
        expect(hexOf(nodeHmac.mac(secret, '1', 'x'))).toBe(
          createHmac('sha256', secret).update('1.').update('x').digest('hex'),
        );
      }
    }
  });

  it('passes a string body through, for OpenSSL to encode natively', () => {
    expect(nodeHmac.text!('é')).toBe('é');
  });

  it('decodes a candidate of exactly 64 hex digits, in either case, and nothing else', () => {
    const hex = hexOf(nodeHmac.mac('k', '17', '{}'));
    expect(Buffer.from(nodeHmac.fromHex!(hex)!)).toEqual(Buffer.from(hex, 'hex'));
    expect(Buffer.from(nodeHmac.fromHex!(hex.toUpperCase())!)).toEqual(Buffer.from(hex, 'hex'));
    for (const bad of [
      hex.slice(2),
      `${hex}00`,
      `${hex.slice(0, 63)}g`,
      `g${hex.slice(1)}`,
      `${hex.slice(0, 62)}é0`,
      // Buffer's hex decoder keeps the low byte of these: 'š' is U+0161, read as 'a'.
      hex.replace(/a/g, '\u0161'),
      hex.replace(/[0-9]/g, (d) => String.fromCharCode(0xff00 + d.charCodeAt(0))),
      '',
    ]) {
      expect(nodeHmac.fromHex!(bad)).toBeUndefined();
    }
  });

  it('matches a MAC with its own digest only, whichever byte differs', () => {
    const mac = nodeHmac.mac('k', '17', '{}');
    const digest = Buffer.from(mac);
    expect(nodeHmac.equal(mac, digest)).toBe(true);
    for (let i = 0; i < digest.length; i++) {
      const other = Buffer.from(digest);
      other[i]! ^= 1;
      expect(nodeHmac.equal(mac, other)).toBe(false);
    }
    expect(nodeHmac.equal(mac, digest.subarray(0, 31))).toBe(false);
  });
});
