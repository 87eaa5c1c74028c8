import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

/**
 * HMAC-SHA256 through Node's OpenSSL binding: two `update` calls stream the `<t>.` prefix and the
 * body without joining them, and `timingSafeEqual` compares in constant time. A string body goes
 * to `update` as it is: Node encodes it to UTF-8 natively, with no JavaScript copy, exactly as a
 * bare `createHmac` loop would (TextEncoder would add a copy and cost 10% on a 1 KB body).
 */
export const nodeHmac: SyncHmac<string> = {
  mac: (secret, t, body) => createHmac('sha256', secret).update(`${t}.`).update(body).digest(),
  equal: (a, b) => timingSafeEqual(a, b),
  text: (body) => body,
  // Native hex decoding, faster than a JavaScript loop. It stops at the first pair that is not
  // hex, so 32 bytes from 64 characters means every one was a hex digit.
  fromHex: (hex) => {
    const digest = Buffer.from(hex, 'hex');
    return hex.length === 64 && digest.length === 32 ? digest : undefined;
  },
};
