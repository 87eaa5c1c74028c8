import { createHmac } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { equalHex, toBytes, toHex } from '../../src/signature/bytes.js';

describe('toBytes', () => {
  it('encodes a string once as UTF-8, lone surrogates as U+FFFD', () => {
    expect([...toBytes('é€')!]).toEqual([0xc3, 0xa9, 0xe2, 0x82, 0xac]);
    expect([...toBytes('\ud800')!]).toEqual([0xef, 0xbf, 0xbd]);
  });

  it('hands a Uint8Array or Buffer back as it is, without a copy', () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const buffer = Buffer.from([4, 5]);
    expect(toBytes(bytes)).toBe(bytes);
    expect(toBytes(buffer)).toBe(buffer);
  });

  it('reads an ArrayBuffer whole and any other view over exactly its own bytes', () => {
    const backing = new Uint8Array([9, 1, 2, 3, 4, 9]).buffer;
    expect([...toBytes(backing)!]).toEqual([9, 1, 2, 3, 4, 9]);
    expect([...toBytes(new DataView(backing, 1, 4))!]).toEqual([1, 2, 3, 4]);
    expect([...toBytes(new Uint16Array(backing, 2, 1))!]).toEqual([2, 3]);
  });

  it('reads a view made in another realm, such as a node:vm context', () => {
    const foreign = runInNewContext('new Uint8Array([7, 8])') as Uint8Array;
    expect(foreign instanceof Uint8Array).toBe(false);
    expect([...toBytes(foreign)!]).toEqual([7, 8]);
  });

  it('gives undefined for anything that is not a body, so callers can say so', () => {
    for (const value of [undefined, null, 42, {}, { byteLength: 3 }, ['a'], new SharedArrayBuffer(2)]) {
      expect(toBytes(value)).toBeUndefined();
    }
  });

  it('lets the caller choose how a string is encoded (the Node build keeps it a string)', () => {
    expect(toBytes('abc', (text) => text)).toBe('abc');
  });
});

describe('toHex', () => {
  it('writes any bytes as lowercase hex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(toHex(bytes)).toBe(Buffer.from(bytes).toString('hex'));
      }),
    );
  });
});

describe('equalHex', () => {
  const mac = createHmac('sha256', 'k').update('17.{}').digest('hex');

  it('matches a MAC with its own hex, in either case', () => {
    expect(equalHex(mac, mac)).toBe(true);
    expect(equalHex(mac, mac.toUpperCase())).toBe(true);
    const sliced = `t=1,v1=${mac}`.slice(7); // as the header parser hands it over
    expect(equalHex(mac, sliced)).toBe(true);
  });

  it('refuses a candidate that differs in any one digit, or in length', () => {
    for (let i = 0; i < mac.length; i++) {
      const other = `${mac.slice(0, i)}${mac[i] === '0' ? '1' : '0'}${mac.slice(i + 1)}`;
      expect(equalHex(mac, other)).toBe(false);
    }
    for (const other of ['', mac.slice(0, 62), `${mac}00`, `${mac}\n`])
      expect(equalHex(mac, other)).toBe(false);
  });

  it('refuses characters that are not hex, including those a case fold or a byte decoder would misread', () => {
    // A MAC of only the digits and letters these characters would be misread as.
    const zeros = '0'.repeat(64);
    const as = 'a'.repeat(64);
    for (const [target, bad] of [
      [as, '\u0161'.repeat(64)], // Buffer's hex decoder keeps the low byte: 'š' (U+0161) reads as 'a'
      [as, '\u0141'.repeat(64)], // 'Ł' (U+0141): `| 0x20` makes it 'š', whose low byte is 'a'
      [as, `${'A'.repeat(63)}G`],
      [as, `${'\u0041'.repeat(63)}\u0021`], // '!' | 0x20 is '!'
      [zeros, '\u0010'.repeat(64)], // `| 0x20` turns U+0010 into '0'
      [zeros, '\uff10'.repeat(64)], // fullwidth digits
      ['6'.repeat(64), '\u0016'.repeat(64)],
      ['60'.repeat(32), '@'.repeat(64)], // '@' | 0x20 is '`'
    ] as const) {
      expect(bad).toHaveLength(64);
      expect(equalHex(target, bad)).toBe(false);
    }
  });
});
