import fc from 'fast-check';
import { SignatureVerificationError } from 'loyalty-partner-sdk/signature';

const NO_SECRET = 'No signing secret configured (empty and blank ones are refused)';

import { describe, expect, it } from 'vitest';
import { bodyOf, builds, referenceV1, vectors } from './vectors.js';

describe.each(builds)('signPayload of %s', (_, { signPayload }) => {
  it.each(vectors.sign)('produces the known header for the "$name" vector, byte for byte', (vector) => {
    expect(signPayload(bodyOf(vector), vector.secrets, { timestamp: vector.timestamp })).toBe(vector.header);
  });

  it('signs a string as its UTF-8 bytes, so a string and its bytes give one header', () => {
    const unicode = vectors.sign.find((vector) => vector.name === 'unicode body')!;
    const text = Buffer.from(unicode.bodyHex, 'hex').toString('utf8');
    expect(signPayload(text, unicode.secrets, { timestamp: unicode.timestamp })).toBe(unicode.header);
  });

  it('signs an empty string exactly as the empty body of the vectors', () => {
    const empty = vectors.sign.find((vector) => vector.name === 'empty body')!;
    expect(signPayload('', empty.secrets, { timestamp: empty.timestamp })).toBe(empty.header);
  });

  it('accepts a Buffer, an ArrayBuffer and a view at an offset as the same bytes', () => {
    const body = Buffer.from('{"eventType":"LoyaltyRuleChanged"}');
    const expected = signPayload(body, 'whsec_one', { timestamp: 1 });
    const padded = new Uint8Array(body.length + 6);
    padded.set(body, 3);
    expect(signPayload(new Uint8Array(body).buffer, 'whsec_one', { timestamp: 1 })).toBe(expected);
    expect(signPayload(padded.subarray(3, 3 + body.length), 'whsec_one', { timestamp: 1 })).toBe(expected);
    expect(
      signPayload(new DataView(padded.buffer, 3, body.length) as never, 'whsec_one', { timestamp: 1 }),
    ).toBe(expected);
  });

  it('agrees with a createHmac written out by hand, one v1 per secret in the order given', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.array(
          fc.string({ unit: 'binary', minLength: 1 }).filter((secret) => /\S/.test(secret)),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (body, secrets, timestamp) => {
          const expected = `t=${timestamp}${secrets.map((secret) => `,v1=${referenceV1(secret, timestamp, body)}`).join('')}`;
          expect(signPayload(body, secrets, { timestamp })).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('stamps the current unix second when no timestamp is given', () => {
    const before = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),/.exec(signPayload('{}', 'whsec_one'))?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('refuses to sign with an empty, blank or missing secret, like verification does, with a TypeError', () => {
    for (const secrets of ['', ' ', '\t\n', [], ['whsec_one', ''], ['whsec_one', '  '], [42], null]) {
      const sign = () => signPayload('{}', secrets as never, { timestamp: 1 });
      expect(sign).toThrow(new TypeError(`Cannot sign: secret: ${NO_SECRET}`));
      expect(sign).not.toThrow(SignatureVerificationError);
    }
  });

  it('refuses a body that is not a string or bytes, such as parsed JSON', () => {
    expect(() => signPayload({ eventType: 'x' } as never, 'whsec_one', { timestamp: 1 })).toThrow(
      new TypeError('Cannot sign: rawBody: rawBody must be a string, Uint8Array or ArrayBuffer'),
    );
  });

  it('refuses a timestamp that is not whole, non-negative unix seconds', () => {
    for (const timestamp of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
      expect(() => signPayload('{}', 'whsec_one', { timestamp })).toThrow(
        new RangeError('Cannot sign: options.timestamp must be whole unix seconds >= 0'),
      );
    }
  });
});
