import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromHex, timingSafeEqualBytes, toBytes, toHex, utf8 } from '../../src/signature/bytes.js';

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

describe('toHex and fromHex', () => {
  it('round-trip any 32 bytes through lowercase hex', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), (bytes) => {
        const hex = toHex(bytes);
        expect(hex).toBe(Buffer.from(bytes).toString('hex'));
        expect([...fromHex(hex)!]).toEqual([...bytes]);
        expect([...fromHex(hex.toUpperCase())!]).toEqual([...bytes]);
      }),
    );
  });

  it('decode only exactly 64 hex digits', () => {
    const good = 'ab'.repeat(32);
    for (const bad of [
      '',
      good.slice(1),
      `${good}a`,
      `${good.slice(0, 63)}g`,
      `g${good.slice(1)}`,
      'é'.repeat(64),
    ]) {
      expect(fromHex(bad)).toBeUndefined();
    }
    expect(fromHex(`${good}\n`)).toBeUndefined();
  });
});

describe('timingSafeEqualBytes', () => {
  it('is true only for the same bytes of the same length', () => {
    expect(timingSafeEqualBytes(utf8('abc'), utf8('abc'))).toBe(true);
    expect(timingSafeEqualBytes(utf8('abc'), utf8('abd'))).toBe(false);
    expect(timingSafeEqualBytes(utf8('abc'), utf8('ab'))).toBe(false);
    expect(timingSafeEqualBytes(utf8('ab'), utf8('abc'))).toBe(false);
    expect(timingSafeEqualBytes(new Uint8Array(), new Uint8Array())).toBe(true);
  });
});
