import type { KeyObject } from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

// node:crypto is loaded on the first MAC, not at import: its ESM facade is about 5 ms of a cold
// `import 'loyalty-partner-sdk/webhooks'` (bench/import-time.mjs), which a process that never
// verifies (or not yet) need not pay; undici and zod wait for first use the same way. Synchronous,
// so `signPayload` and `verifySignature` stay synchronous (Node 20.16+, Bun and Deno have it).
let nodeCrypto: typeof import('node:crypto') | undefined;
const cryptoModule = () => (nodeCrypto ??= process.getBuiltinModule('node:crypto'));

// A KeyObject made once per secret spares createHmac turning the string into a key on every call
// (about 6% of a 1 KB verification). Bounded like the Web Crypto key cache: a process serving
// many tenants cannot grow it without limit (when full it starts over).
const MAX_CACHED_KEYS = 32;
const keys = new Map<string, KeyObject>();

function keyOf(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_CACHED_KEYS) keys.clear();
    key = cryptoModule().createSecretKey(Buffer.from(secret, 'utf8'));
    keys.set(secret, key);
  }
  return key;
}

/**
 * HMAC-SHA256 through Node's OpenSSL binding: two `update` calls stream the `<t>.` prefix and the
 * body without joining them. A string body goes to `update` as it is: Node encodes it to UTF-8
 * natively, with no JavaScript copy, exactly as a bare `createHmac` loop would (a TextEncoder copy
 * first would cost several percent on 1 KB). `digest('hex')` is a string straight from OpenSSL:
 * a `Buffer` digest costs an ArrayBuffer per MAC, 1.3 to 2 µs more per 1 KB verification with
 * the candidate's decoding and `timingSafeEqual` (npm run bench).
 */
export const nodeHmac: SyncHmac<string> = {
  mac: (secret, t, body) =>
    cryptoModule().createHmac('sha256', keyOf(secret)).update(`${t}.`).update(body).digest('hex'),
  text: (body) => body,
};
