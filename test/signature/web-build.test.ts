import * as node from 'loyalty-partner-sdk/signature';
import { describe, expect, it } from 'vitest';
import * as web from '../../src/signature/index.js';
import { bodyOf, referenceV1, vectors } from './vectors.js';

describe('signPayloadAsync (Web Crypto, the same in both builds)', () => {
  it.each(vectors.sign)('produces the known header for the "$name" vector, byte for byte', async (vector) => {
    const header = await web.signPayloadAsync(bodyOf(vector), vector.secrets, {
      timestamp: vector.timestamp,
    });
    expect(header).toBe(vector.header);
    expect(node.signPayloadAsync).toBe(web.signPayloadAsync);
  });

  it('agrees with a createHmac written out by hand for a string body', async () => {
    const header = await web.signPayloadAsync('{"é":1}', ['whsec_a', 'whsec_b'], { timestamp: 7 });
    expect(header).toBe(
      `t=7,v1=${referenceV1('whsec_a', 7, '{"é":1}')},v1=${referenceV1('whsec_b', 7, '{"é":1}')}`,
    );
  });

  it('refuses secrets, bodies and timestamps exactly as signPayload does, by rejecting', async () => {
    await expect(web.signPayloadAsync('{}', '', { timestamp: 1 })).rejects.toThrow(/^Cannot sign: secret: /);
    await expect(web.signPayloadAsync('{}', ' ', { timestamp: 1 })).rejects.toBeInstanceOf(TypeError);
    await expect(web.signPayloadAsync({} as never, 'whsec_a', { timestamp: 1 })).rejects.toThrow(
      /^Cannot sign: rawBody: /,
    );
    await expect(web.signPayloadAsync('{}', 'whsec_a', { timestamp: -1 })).rejects.toBeInstanceOf(RangeError);
  });
});

describe('the synchronous functions of the Web build', () => {
  // Web Crypto, the only HMAC of edge runtimes and browsers, is asynchronous.
  it('throw a TypeError naming the asynchronous function to use, before reading any input', () => {
    expect(() => web.verifySignature('{}', 't=1,v1=00', 'whsec_a')).toThrow(
      new TypeError(
        'verifySignature needs Node.js crypto (a synchronous HMAC), which this runtime lacks; use verifySignatureAsync, which runs on Web Crypto',
      ),
    );
    expect(() => web.signPayload('{}', 'whsec_a')).toThrow(/use signPayloadAsync, which runs on Web Crypto/);
  });

  it('are the working Node crypto functions under the node export condition', () => {
    const header = node.signPayload('{}', 'whsec_a', { timestamp: 1 });
    expect(node.verifySignature('{}', header, 'whsec_a', { now: 1 })).toEqual({
      timestamp: 1,
      secretIndex: 0,
    });
  });
});
