import fc from 'fast-check';
import {
  DEFAULT_TOLERANCE_SECONDS,
  SignatureVerificationError,
  type VerifiedSignature,
  verifySignatureAsync,
} from 'loyalty-partner-sdk/signature';
import { describe, expect, it } from 'vitest';
import { bodyOf, builds, referenceV1, type VerifyVector, vectors } from './vectors.js';

/** Lists of 1 to `most` distinct usable (non-blank) secrets of up to `length` characters. */
const secretLists = (length: number, most: number) =>
  fc.uniqueArray(
    fc.string({ unit: 'binary', minLength: 1, maxLength: length }).filter((x) => /\S/.test(x)),
    { minLength: 1, maxLength: most },
  );

/** What the vector should verify to, worked out with node:crypto instead of the SDK. */
function expectedSuccess(vector: VerifyVector): VerifiedSignature {
  const t = /t=(\d+)/.exec(vector.header!)![1]!;
  const candidates = vector.header!.split(',').map((part) => part.trim().replace(/^v1=/, ''));
  const secretIndex = vector.secrets.findIndex((secret) =>
    candidates.includes(referenceV1(secret, t, bodyOf(vector))),
  );
  return { timestamp: Number(t), secretIndex };
}

function expectVectorError(error: unknown, vector: VerifyVector): void {
  expect(error).toBeInstanceOf(SignatureVerificationError);
  expect(error).toMatchObject({ code: vector.expect, ...(vector.reason ? { reason: vector.reason } : {}) });
}

const verifyAsyncOf = (vector: VerifyVector) =>
  verifySignatureAsync(bodyOf(vector), vector.header, vector.secrets, { now: vector.now });

describe.each(builds)('verifySignature of %s', (_, { verifySignature }) => {
  const verifyOf = (vector: VerifyVector) =>
    verifySignature(bodyOf(vector), vector.header, vector.secrets, { now: vector.now });

  it.each(vectors.verify)('gives the known answer for the "$name" vector', (vector) => {
    if (vector.expect === 'ok') {
      expect(verifyOf(vector)).toEqual(expectedSuccess(vector));
    } else {
      expect(() => verifyOf(vector)).toThrow(SignatureVerificationError);
      try {
        verifyOf(vector);
      } catch (error) {
        expectVectorError(error, vector);
      }
    }
  });

  it('calls a header whose only v1 values are not 64 hex digits a mismatch, not a malformed header', () => {
    const good = vectors.verify.find((vector) => vector.name === 'valid')!;
    for (const v1 of [
      'z'.repeat(64),
      'ab'.repeat(20),
      'ab'.repeat(33),
      'é'.repeat(64),
      `${'a'.repeat(63)}g`,
    ]) {
      expect(() =>
        verifySignature(bodyOf(good), `t=${1763630000},v1=${v1}`, good.secrets, { now: good.now }),
      ).toThrow(expect.objectContaining({ code: 'INVALID_SIGNATURE', reason: 'no_match' }));
    }
  });

  it('reads v1 digits in either case', () => {
    const good = vectors.verify.find((vector) => vector.name === 'valid')!;
    const header = good.header!.toUpperCase().replace('T=', 't=').replace('V1=', 'v1=');
    expect(verifySignature(bodyOf(good), header, good.secrets, { now: good.now })).toEqual(
      expectedSuccess(good),
    );
  });

  it('signs over the t digits exactly as sent, leading zeros included', () => {
    const body = '{"a":1}';
    const header = `t=0001763630000,v1=${referenceV1('whsec_one', '0001763630000', body)}`;
    expect(verifySignature(body, header, 'whsec_one', { now: 1763630000 })).toEqual({
      timestamp: 1763630000,
      secretIndex: 0,
    });
    expect(() =>
      verifySignature(
        body,
        `t=1763630000,v1=${referenceV1('whsec_one', '0001763630000', body)}`,
        'whsec_one',
        {
          now: 1763630000,
        },
      ),
    ).toThrow(expect.objectContaining({ reason: 'no_match' }));
  });

  it('returns the index of the first configured secret that matches while secrets rotate', () => {
    const body = '{"rotation":true}';
    const header = `t=100,v1=${referenceV1('new', 100, body)},v1=${referenceV1('old', 100, body)}`;
    expect(verifySignature(body, header, ['new', 'old'], { now: 100 }).secretIndex).toBe(0);
    expect(verifySignature(body, header, ['old', 'new'], { now: 100 }).secretIndex).toBe(0);
    expect(verifySignature(body, header, ['other', 'old'], { now: 100 }).secretIndex).toBe(1);
    expect(
      verifySignature(body, `t=100,v1=${referenceV1('old', 100, body)}`, ['new', 'old'], { now: 100 }),
    ).toEqual({
      timestamp: 100,
      secretIndex: 1,
    });
  });

  it('uses every byte of a secret as given, without trimming', () => {
    const header = `t=100,v1=${referenceV1(' whsec_one ', 100, '{}')}`;
    expect(verifySignature('{}', header, ' whsec_one ', { now: 100 }).secretIndex).toBe(0);
    expect(() => verifySignature('{}', header, 'whsec_one', { now: 100 })).toThrow(
      expect.objectContaining({ reason: 'no_match' }),
    );
  });

  it('never verifies with an empty key: an empty secret anywhere, an empty list or a non-string is no_secret', () => {
    const header = `t=100,v1=${referenceV1('x', 100, '{}')}`;
    for (const secrets of ['', [], ['x', ''], ['', 'x'], [1], null, undefined, { 0: 'x' }]) {
      expect(() => verifySignature('{}', header, secrets as never, { now: 100 })).toThrow(
        expect.objectContaining({ code: 'INVALID_SIGNATURE', reason: 'no_secret' }),
      );
    }
  });

  it('accepts a timestamp exactly toleranceSeconds away in both directions, and not one second more', () => {
    const header = `t=1000,v1=${referenceV1('s', 1000, '{}')}`;
    for (const toleranceSeconds of [0, 10, DEFAULT_TOLERANCE_SECONDS]) {
      for (const direction of [-1, 1]) {
        expect(
          verifySignature('{}', header, 's', { now: 1000 + direction * toleranceSeconds, toleranceSeconds })
            .timestamp,
        ).toBe(1000);
        expect(() =>
          verifySignature('{}', header, 's', {
            now: 1000 + direction * (toleranceSeconds + 1),
            toleranceSeconds,
          }),
        ).toThrow(
          expect.objectContaining({
            code: 'SIGNATURE_EXPIRED',
            reason: direction > 0 ? 'timestamp_too_old' : 'timestamp_in_future',
          }),
        );
      }
    }
  });

  it('judges the timestamp against the real clock when no now is given', () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifySignature('{}', `t=${t},v1=${referenceV1('s', t, '{}')}`, 's').timestamp).toBe(t);
    const stale = t - DEFAULT_TOLERANCE_SECONDS - 5;
    expect(() => verifySignature('{}', `t=${stale},v1=${referenceV1('s', stale, '{}')}`, 's')).toThrow(
      expect.objectContaining({ reason: 'timestamp_too_old' }),
    );
  });

  it('fails closed when toleranceSeconds or now is not a number', () => {
    const header = `t=1000,v1=${referenceV1('s', 1000, '{}')}`;
    for (const options of [{ toleranceSeconds: Number.NaN }, { now: Number.NaN }, { toleranceSeconds: -1 }]) {
      expect(() => verifySignature('{}', header, 's', { now: 1000, ...options })).toThrow(
        expect.objectContaining({ code: 'SIGNATURE_EXPIRED' }),
      );
    }
  });

  it('says in each message what to check', () => {
    const header = `t=1000,v1=${referenceV1('s', 1000, '{}')}`;
    const messageOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return (error as Error).message;
      }
      return 'no error';
    };
    expect(messageOf(() => verifySignature('{}', undefined, 's'))).toBe('X-Signature header is missing');
    expect(messageOf(() => verifySignature('{}', 't=1', 's'))).toContain(
      'expected t=<unix seconds>,v1=<hex>',
    );
    expect(messageOf(() => verifySignature('{}', header, '', { now: 1000 }))).toContain('No signing secret');
    expect(messageOf(() => verifySignature('{!}', header, ['a', 's2'], { now: 1000 }))).toMatch(
      /2 configured secret\(s\); check the signing secret and that the raw body bytes are unchanged/,
    );
    expect(messageOf(() => verifySignature('{}', header, 's', { now: 1301 }))).toContain(
      '301 s old, over the 300 s tolerance; check the clocks',
    );
    expect(messageOf(() => verifySignature('{}', header, 's', { now: 699 }))).toContain('301 s ahead');
  });

  it('reports a body that is not a string or bytes, such as parsed JSON, as a mismatch that names rawBody', () => {
    const header = `t=1000,v1=${referenceV1('s', 1000, '{}')}`;
    for (const body of [{}, undefined, null, 42, ['{}']]) {
      expect(() => verifySignature(body as never, header, 's', { now: 1000 })).toThrow(
        expect.objectContaining({ reason: 'no_match', message: expect.stringContaining('rawBody') }),
      );
    }
  });

  it('round-trips any bytes, secrets and timestamp through signPayload, whatever secrets surround the signing one', () => {
    const { signPayload } = builds.find(([, build]) => build.verifySignature === verifySignature)![1];
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 200 }),
        secretLists(40, 4),
        fc.nat({ max: 3 }),
        fc.integer({ min: 0, max: 2 ** 45 }),
        (body, secrets, pick, timestamp) => {
          const signer = secrets[pick % secrets.length]!;
          const header = signPayload(body, signer, { timestamp });
          expect(verifySignature(body, header, secrets, { now: timestamp })).toEqual({
            timestamp,
            secretIndex: secrets.indexOf(signer),
          });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects any change to the body, to t or to a v1 digit as no_match', () => {
    const { signPayload } = builds.find(([, build]) => build.verifySignature === verifySignature)![1];
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.string({ unit: 'binary', minLength: 1 }).filter((x) => /\S/.test(x)),
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (body, secret, timestamp, at, flip) => {
          const header = signPayload(body, secret, { timestamp });
          const v1 = header.slice(header.indexOf('v1=') + 3);
          const changedBody = body.slice();
          changedBody[at % body.length]! ^= flip;
          const digit = at % 64;
          const changedV1 =
            v1.slice(0, digit) +
            ((Number.parseInt(v1[digit]!, 16) + 1) % 16).toString(16) +
            v1.slice(digit + 1);
          const wide = { now: timestamp, toleranceSeconds: 10 };
          for (const [rawBody, changedHeader] of [
            [changedBody, header],
            [body, `t=${timestamp + 1},v1=${v1}`],
            [body, `t=${timestamp - 1},v1=${v1}`],
            [body, `t=${timestamp},v1=${changedV1}`],
          ] as const) {
            expect(() => verifySignature(rawBody, changedHeader, secret, wide)).toThrow(
              expect.objectContaining({ reason: 'no_match' }),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('never puts the secret, the expected signature or a received v1 into a message, String(err) or JSON', () => {
    const { signPayload } = builds.find(([, build]) => build.verifySignature === verifySignature)![1];
    fc.assert(
      fc.property(
        fc.stringMatching(/^whsec_[A-Za-z0-9+/]{16,40}$/),
        fc.string({ unit: 'binary' }),
        fc.integer({ min: 1000, max: 2 ** 40 }),
        (secret, body, timestamp) => {
          const header = signPayload(body, secret, { timestamp });
          const expected = header.slice(header.indexOf('v1=') + 3);
          const received = expected.replace(/^./, (c) => (c === '0' ? '1' : '0'));
          const attempts: Array<() => unknown> = [
            () => verifySignature(`${body}!`, header, secret, { now: timestamp }),
            () => verifySignature(body, `t=${timestamp},v1=${received}`, secret, { now: timestamp }),
            () => verifySignature(body, header, secret, { now: timestamp + 10_000 }),
            () => verifySignature(body, header, `${secret}x`, { now: timestamp }),
            () => verifySignature(body, `t=${timestamp},v2=${expected}`, secret, { now: timestamp }),
          ];
          for (const attempt of attempts) {
            let caught: unknown;
            try {
              attempt();
            } catch (error) {
              caught = error;
            }
            expect(caught).toBeInstanceOf(SignatureVerificationError);
            const err = caught as SignatureVerificationError;
            for (const text of [err.message, String(err), JSON.stringify(err), err.stack ?? '']) {
              expect(text).not.toContain(secret);
              expect(text).not.toContain(expected.slice(0, 16));
              expect(text).not.toContain(received.slice(0, 16));
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('verifySignatureAsync (Web Crypto, the same in both builds)', () => {
  it.each(vectors.verify)('gives the known answer for the "$name" vector', async (vector) => {
    if (vector.expect === 'ok') {
      await expect(verifyAsyncOf(vector)).resolves.toEqual(expectedSuccess(vector));
    } else {
      const error = await verifyAsyncOf(vector).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expectVectorError(error, vector);
    }
  });

  it('rejects instead of throwing, even for a missing header or a missing secret', async () => {
    const missingHeader = verifySignatureAsync('{}', undefined, 'whsec_one', { now: 1 });
    const noSecret = verifySignatureAsync('{}', `t=1,v1=${'0'.repeat(64)}`, [], { now: 1 });
    expect(missingHeader).toBeInstanceOf(Promise);
    await expect(missingHeader).rejects.toMatchObject({ reason: 'missing_header' });
    await expect(noSecret).rejects.toMatchObject({ reason: 'no_secret' });
  });

  it('agrees with the synchronous verifySignature of the Node build on arbitrary signed requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 200 }),
        secretLists(20, 3),
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.boolean(),
        async (body, secrets, timestamp, tamper) => {
          const header = builds[0][1].signPayload(body, secrets.at(-1)!, { timestamp });
          const sent = tamper ? `${header.slice(0, -1)}${header.endsWith('0') ? '1' : '0'}` : header;
          const outcome = (run: () => unknown) => {
            try {
              return run();
            } catch (error) {
              return (error as SignatureVerificationError).reason;
            }
          };
          const options = { now: timestamp };
          const expected = outcome(() => builds[0][1].verifySignature(body, sent, secrets, options));
          const asynchronous = await verifySignatureAsync(body, sent, secrets, options).then(
            (result) => result,
            (error: SignatureVerificationError) => error.reason,
          );
          expect(asynchronous).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });
});
