import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

// A KeyObject made once per secret spares createHmac turning the string into a key on every call
// (about 6% of a 1 KB verification). Bounded like the Web Crypto key cache: a process serving
// many tenants cannot grow it without limit (when full it starts over).
const MAX_CACHED_KEYS = 32;
const keys = new Map<string, KeyObject>();

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

// Exactly 64 hex digits, either case: what the Web build's decoder accepts, so both builds refuse
// the same candidates. Checked before decoding because Buffer's native hex decoder keeps the low
// byte of a character above U+00FF ('\u0161' reads as 'a'), which would accept a digest the Web
// build refuses.
const HEX_64 = /^[\da-f]{64}$/i;

// The `v1` candidate being compared, decoded natively into one reused buffer: verification
// compares each candidate with every MAC before decoding the next.
const candidate = Buffer.alloc(32);

/** Node's constant-time comparison; the lengths are public (a digest is always 32 bytes). */
const equalDigests = (mac: Buffer, digest: Uint8Array): boolean =>
  mac.length === digest.length && timingSafeEqual(mac, digest);

/**
 * HMAC-SHA256 through Node's OpenSSL binding: two `update` calls stream the `<t>.` prefix and the
 * body without joining them. A string body goes to `update` as it is: Node encodes it to UTF-8
 * natively, with no JavaScript copy, exactly as a bare `createHmac` loop would (a TextEncoder copy
 * first would cost several percent on 1 KB). Digests are compared with `crypto.timingSafeEqual`,
 * as the bare `createHmac` + `timingSafeEqual` floor of `npm run bench` does.
 */
export const nodeHmac: SyncHmac<string, Buffer> = {
  mac: (secret, t, body) => createHmac('sha256', keyOf(secret)).update(`${t}.`).update(body).digest(),
  equal: equalDigests,
  text: (body) => body,
  fromHex: (hex) => (HEX_64.test(hex) && candidate.write(hex, 'hex') === 32 ? candidate : undefined),
  toHex: (mac) => mac.toString('hex'),
  hexMac: (secret, t, body) => createHmac('sha256', keyOf(secret)).update(`${t}.`).update(body).digest('hex'),
};
