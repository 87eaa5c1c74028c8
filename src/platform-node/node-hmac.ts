import type * as NodeCrypto from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

/**
 * HMAC-SHA256 as RFC 2104 defines it, `SHA256((K ^ opad) || SHA256((K ^ ipad) || message))`,
 * with the key `K` padded to SHA-256's 64-byte block (hashed first if longer), on Node's one-shot
 * `crypto.hash`.
 *
 * Why not `createHmac`: setting one up costs about 2.5 µs whatever the message (its JavaScript
 * object and OpenSSL's algorithm fetch on every init), more than hashing a 1 KB body (1.1 µs).
 * The pads depend only on the secret, so they are made once per secret, and a MAC is two
 * one-shot hashes: receiver.handle went 1.11-1.15x faster per 1 KB delivery, from 1.17x to 1.32x
 * stripe's constructEvent (bench/receiver-ab.mjs, 3 runs). test/signature/node-hmac.test.ts
 * holds it equal to `createHmac` for any secret, timestamp and body.
 */
// node:crypto is loaded on the first MAC, not at import: its ESM facade is about 5 ms of a cold
// `import 'loyalty-partner-sdk/webhooks'` (bench/import-time.mjs), which a process that never
// verifies (or not yet) need not pay; undici and zod wait for first use the same way. Synchronous,
// so `signPayload` and `verifySignature` stay synchronous (Node 20.16+, Bun and Deno have it).
let loaded: typeof NodeCrypto | undefined;
const nodeCrypto = (): typeof NodeCrypto => (loaded ??= process.getBuiltinModule('node:crypto'));
// Node has the one-shot `hash` from 20.12 (package.json asks for 20.18); Bun and Deno, which
// take the `node` export condition too, may not: there each MAC is a `createHmac`.
const oneShot = () => (nodeCrypto() as Partial<typeof NodeCrypto>).hash;
const BLOCK = 64;
const DIGEST = 32;

// Bounded like the Web Crypto key cache: a process serving many tenants cannot grow it without
// limit (when full it starts over).
const MAX_CACHED_KEYS = 32;

/** `K ^ ipad` (one block), and `K ^ opad` followed by room for the inner digest. */
interface Pads {
  inner: Buffer;
  outer: Buffer;
}
const padsBySecret = new Map<string, Pads>();

function padsOf(secret: string): Pads {
  let pads = padsBySecret.get(secret);
  if (!pads) {
    if (padsBySecret.size >= MAX_CACHED_KEYS) padsBySecret.clear();
    let key: Buffer = Buffer.from(secret, 'utf8');
    if (key.length > BLOCK) key = nodeCrypto().createHash('sha256').update(key).digest();
    pads = { inner: Buffer.alloc(BLOCK, 0x36), outer: Buffer.alloc(BLOCK + DIGEST, 0x5c) };
    for (let i = 0; i < key.length; i++) {
      pads.inner[i]! ^= key[i]!;
      pads.outer[i]! ^= key[i]!;
    }
    padsBySecret.set(secret, pads);
  }
  return pads;
}

// The inner message, `K ^ ipad`, `<t>.` and the body, is laid out in one reused buffer (the MAC
// is synchronous, so no two calls share it at once). A body too large for it is streamed through
// createHash instead, so that the buffer never holds more than MAX_SCRATCH bytes.
const MAX_SCRATCH = 256 * 1024;
let scratch = Buffer.alloc(8 * 1024);

function innerDigest(
  hash: typeof NodeCrypto.hash,
  inner: Buffer,
  t: string,
  body: Uint8Array | string,
): string {
  // UTF-8 takes at most 3 bytes per UTF-16 unit, so this is room enough without measuring.
  const room = BLOCK + 3 * (t.length + 1) + (typeof body === 'string' ? 3 * body.length : body.byteLength);
  if (room > MAX_SCRATCH)
    return nodeCrypto().createHash('sha256').update(inner).update(`${t}.`).update(body).digest('hex');
  if (scratch.length < room)
    scratch = Buffer.alloc(Math.min(MAX_SCRATCH, Math.max(room, 2 * scratch.length)));
  inner.copy(scratch);
  let end = BLOCK + scratch.write(`${t}.`, BLOCK);
  if (typeof body === 'string') end += scratch.write(body, end);
  else {
    scratch.set(body, end);
    end += body.byteLength;
  }
  return hash('sha256', scratch.subarray(0, end), 'hex');
}

/**
 * HMAC-SHA256 on Node's OpenSSL binding (see above). A string body is written as UTF-8 by Node
 * natively, with no JavaScript copy first (lone surrogates become U+FFFD, as with `createHmac`
 * and every HTTP client). The MAC is 64 lowercase hex digits, the `v1` encoding.
 */
export const nodeHmac: SyncHmac<string> = {
  mac(secret, t, body) {
    const hash = oneShot();
    if (!hash) return nodeCrypto().createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex');
    const { inner, outer } = padsOf(secret);
    outer.write(innerDigest(hash, inner, t, body), BLOCK, 'hex');
    return hash('sha256', outer, 'hex');
  },
  text: (body) => body,
};
