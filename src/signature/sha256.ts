import { timingSafeEqualBytes, utf8 } from './bytes.js';
import type { SyncHmac } from './hmac.js';

// FIPS 180-4 constants: the first 32 bits of the fractional parts of the square roots (initial
// hash, the first 8) and cube roots (round constants) of the first 64 primes. Derived instead of
// listed because the 72 literals would cost more of the browser budget than this loop; the
// tests check the result against node:crypto. `x * 2 ** 32 | 0` keeps those bits: the scaling is
// exact and ToInt32 drops the integer part.
const IV: number[] = [];
const K: number[] = [];
for (let n = 2; K.length < 64; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (prime) {
    IV.push((Math.sqrt(n) * 2 ** 32) | 0);
    K.push((Math.cbrt(n) * 2 ** 32) | 0);
  }
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

type Words = [number, number, number, number, number, number, number, number];

/**
 * SHA-256 of the concatenation of `chunks`, in plain JavaScript, for the synchronous functions
 * where no Node crypto exists (edge runtimes, browsers): Web Crypto has no synchronous digest.
 * The chunks are streamed byte by byte into one 64-byte block, never joined or copied, which is
 * also the smallest code (it counts against the browser budget) and fast enough for bodies of
 * webhook size.
 */
export function sha256(...chunks: Uint8Array[]): Uint8Array {
  const state = new Int32Array(IV.slice(0, 8));
  const w = new Int32Array(64);
  let length = 0;
  // Bytes are shifted straight into the big-endian message words: no block buffer to copy from.
  // `& 255` keeps the low 8 bits (of the truncated number, for the length bytes below); the
  // fourth shift pushes a word's previous block out entirely. Every 64th byte runs a round.
  const push = (byte: number): void => {
    w[(length >> 2) & 15] = (w[(length >> 2) & 15]! << 8) | (byte & 255);
    if (++length & 63) return;
    let [a, b, c, d, e, f, g, h] = state as unknown as Words;
    for (let t = 0; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      // The first 16 words are the block itself.
      if (t > 15) {
        w[t] =
          (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)) +
          w[t - 7]! +
          (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) +
          w[t - 16]!;
      }
      const t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!;
      const t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    // Int32Array stores wrap to 32 bits, which is the modular addition SHA-256 wants.
    [a, b, c, d, e, f, g, h].forEach((word, i) => {
      state[i]! += word;
    });
  };

  for (const chunk of chunks) for (const byte of chunk) push(byte);
  // Padding: 0x80, zeros up to 56 mod 64, then the bit length as a 64-bit big-endian integer.
  const bits = length * 8;
  push(0x80);
  while ((length & 63) !== 56) push(0);
  for (let i = 7; i >= 0; i--) push(bits / 256 ** i);
  return Uint8Array.from({ length: 32 }, (_, i) => state[i >> 2]! >>> (24 - 8 * (i & 3)));
}

/** HMAC-SHA256 (RFC 2104) of `prefix` followed by `body`, neither copied. */
export function hmacSha256(key: Uint8Array, prefix: Uint8Array, body: Uint8Array): Uint8Array {
  const padded = new Uint8Array(64);
  padded.set(key.length > 64 ? sha256(key) : key);
  const pad = (byte: number): Uint8Array => padded.map((k) => k ^ byte);
  return sha256(pad(0x5c), sha256(pad(0x36), prefix, body));
}

/** The pure-JS HMAC bound for the synchronous functions of the Web build. */
export const pureJsHmac: SyncHmac = {
  mac: (secret, t, body) => hmacSha256(utf8(secret), utf8(`${t}.`), body),
  equal: timingSafeEqualBytes,
};
