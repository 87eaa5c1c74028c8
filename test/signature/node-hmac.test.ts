import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { nodeHmac } from '../../src/platform-node/node-hmac.js';

describe('nodeHmac (the Node build)', () => {
  it('MACs `<t>.` and a body of bytes or of text as node:crypto does, as lowercase hex', () => {
    const expected = createHmac('sha256', 'k').update('17.').update('é{}').digest('hex');
    expect(nodeHmac.mac('k', '17', 'é{}')).toBe(expected);
    expect(nodeHmac.mac('k', '17', Buffer.from('é{}'))).toBe(expected);
  });

  it('stays exact for every secret while its key cache fills up and starts over', () => {
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 40; i++) {
        const secret = `whsec_tenant_${i}`;
        expect(nodeHmac.mac(secret, '1', 'x')).toBe(
          createHmac('sha256', secret).update('1.').update('x').digest('hex'),
        );
      }
    }
  });

  it('passes a string body through, for OpenSSL to encode natively', () => {
    expect(nodeHmac.text!('é')).toBe('é');
  });
});
