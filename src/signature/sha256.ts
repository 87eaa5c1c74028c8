import { timingSafeEqualBytes, utf8 } from './bytes.js';
import type { SyncHmac } from './hmac.js';

// FIPS 180-4 constants: the first 32 bits of the fractional parts of the square roots (initial
// hash) and cube roots (round constants) of the first primes. Derived instead of listed because
// the 72 literals would cost more of the 2 KB browser budget than this loop; the tests check the
// result against node:crypto, and doubles carry enough bits for these roots to be exact.
const K = new Int32Array(64);
const IV = new Int32Array(8);
const fraction = (root: number): number => ((root % 1) * 2 ** 32) | 0;
for (let n = 2, found = 0; found < 64; n++) {
  let prime = true;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) prime = false;
  if (prime) {
    if (found < 8) IV[found] = fraction(Math.sqrt(n));
    K[found++] = fraction(Math.cbrt(n));
  }
}

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

type Words = [number, number, number, number, number, number, number, number];

/**
 * SHA-256 of the concatenation of `chunks`, in plain JavaScript, for the synchronous functions
 * where no Node crypto exists (edge runtimes, browsers): Web Crypto has no synchronous digest.
 * The chunks are streamed byte by byte into one 64-byte block, never joined or copied, which is
 * also the smallest code (it counts against the 2 KB browser budget) and fast enough for bodies
 * of webhook size.
 */
export function sha256(...chunks: Uint8Array[]): Uint8Array {
  const state = IV.slice();
  const block = new Uint8Array(64);
  const w = new Int32Array(64);
  let length = 0;

  const compress = (): void => {
    let [a, b, c, d, e, f, g, h] = state as unknown as Words;
    for (let t = 0; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      w[t] =
        t < 16
          ? (block[4 * t]! << 24) | (block[4 * t + 1]! << 16) | (block[4 * t + 2]! << 8) | block[4 * t + 3]!
          : (rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10)) +
            w[t - 7]! +
            (rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3)) +
            w[t - 16]!;
      const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[t]! + w[t]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
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
  // Uint8Array stores keep the low 8 bits of the truncated number, which the length bytes rely on.
  const push = (byte: number): void => {
    block[length++ & 63] = byte;
    if (!(length & 63)) compress();
  };

  for (const chunk of chunks) for (const byte of chunk) push(byte);
  // Padding: 0x80, zeros up to 56 mod 64, then the bit length as a 64-bit big-endian integer.
  const bits = length * 8;
  push(0x80);
  while ((length & 63) !== 56) push(0);
  for (let i = 7; i >= 0; i--) push(bits / 256 ** i);
  const digest = new Uint8Array(32);
  for (let i = 0; i < 32; i++) digest[i] = state[i >> 2]! >>> (24 - 8 * (i & 3));
  return digest;
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
