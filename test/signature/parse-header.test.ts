import { parseSignatureHeader, SignatureVerificationError } from 'loyalty-partner-sdk/signature';
import { describe, expect, it } from 'vitest';

const HEX = 'ab'.repeat(32);

function reasonOf(header: unknown): string {
  try {
    parseSignatureHeader(header);
    return 'parsed';
  } catch (error) {
    expect(error).toBeInstanceOf(SignatureVerificationError);
    return (error as SignatureVerificationError).reason;
  }
}

describe('parseSignatureHeader', () => {
  it('returns the timestamp and every non-empty v1, in order, and nothing else', () => {
    const parsed = parseSignatureHeader(`t=1763630000,v1=${HEX},v1=,v1=zz,v1=${HEX.toUpperCase()}`);
    expect(parsed).toStrictEqual({ timestamp: 1763630000, signatures: [HEX, 'zz', HEX.toUpperCase()] });
  });

  it('ignores whitespace around parts and schemes it does not know, in any order', () => {
    expect(parseSignatureHeader(` v0=abc ,\tv1=${HEX} , t=5 ,v2=${HEX},x`)).toStrictEqual({
      timestamp: 5,
      signatures: [HEX],
    });
  });

  it.each([null, undefined, ''])('calls %j a missing header', (header) => {
    expect(reasonOf(header)).toBe('missing_header');
  });

  it.each([
    ['no t', `v1=${HEX}`],
    ['no v1', 't=1'],
    ['only an empty v1', 't=1,v1='],
    ['two t, even equal', `t=1,t=1,v1=${HEX}`],
    ['an empty t', `t=,v1=${HEX}`],
    ['a negative t', `t=-1,v1=${HEX}`],
    ['a signed t', `t=+1,v1=${HEX}`],
    ['a fractional t', `t=1.5,v1=${HEX}`],
    ['a hex t', `t=0x10,v1=${HEX}`],
    ['an exponent t', `t=1e9,v1=${HEX}`],
    ['trailing junk after t', `t=1763630000abc,v1=${HEX}`],
    ['a space inside t', `t=17 63,v1=${HEX}`],
    ['non-ASCII digits in t', `t=١٧٦,v1=${HEX}`],
    ['a t of 16 digits, past safe integers', `t=${'9'.repeat(16)},v1=${HEX}`],
    ['a key spelled with a space', `t =1,v1=${HEX}`],
    ['an upper-case T', `T=1,v1=${HEX}`],
    ['only whitespace', '   '],
    ['only commas', ',,,'],
  ])('calls a header with %s malformed', (_, header) => {
    expect(reasonOf(header)).toBe('malformed_header');
  });

  it.each([
    ['a number', 1763630000],
    ['an array of headers', [`t=1,v1=${HEX}`]],
    ['an object', { t: 1, v1: HEX }],
    ['a String object', new String(`t=1,v1=${HEX}`)],
    ['a boolean', false],
  ])('calls %s malformed rather than crashing', (_, header) => {
    expect(reasonOf(header)).toBe('malformed_header');
  });

  it('accepts 15-digit timestamps and zero', () => {
    expect(parseSignatureHeader(`t=${'9'.repeat(15)},v1=${HEX}`).timestamp).toBe(999_999_999_999_999);
    expect(parseSignatureHeader(`t=0,v1=${HEX}`).timestamp).toBe(0);
  });

  it('accepts up to 16 v1 candidates and refuses a 17th', () => {
    const v1s = (n: number) => Array.from({ length: n }, () => `v1=${HEX}`).join(',');
    expect(parseSignatureHeader(`t=1,${v1s(16)}`).signatures).toHaveLength(16);
    expect(reasonOf(`t=1,${v1s(17)}`)).toBe('malformed_header');
  });

  it('accepts a header of exactly 8 KiB and refuses one character more', () => {
    const header = (length: number) => `t=1,v1=${'a'.repeat(length - 7)}`;
    expect(header(8192)).toHaveLength(8192);
    expect(parseSignatureHeader(header(8192)).signatures[0]).toHaveLength(8185);
    expect(reasonOf(header(8193))).toBe('malformed_header');
  });

  it('explains the expected format without echoing any part of the header', () => {
    const secretLooking = `t=1x,v1=${HEX}`;
    expect(() => parseSignatureHeader(secretLooking)).toThrow('t=<unix seconds>,v1=<hex>');
    expect(() => parseSignatureHeader(secretLooking)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(HEX.slice(0, 8)) }),
    );
  });
});
