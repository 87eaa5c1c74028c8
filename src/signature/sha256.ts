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

/** A streaming SHA-256: `update` any number of times, then `digest` once. */
export interface Sha256 {
  update(data: Uint8Array): Sha256;
  digest(): Uint8Array;
}

/**
 * A portable SHA-256 in plain JavaScript, for the synchronous functions where no Node crypto
 * exists (edge runtimes, browsers): Web Crypto has no synchronous digest.
 */
export function createSha256(): Sha256 {
  const state = IV.slice();
  const block = new Uint8Array(64);
  const w = new Int32Array(64);
  let length = 0;

  const compress = (data: Uint8Array, at: number): void => {
    for (let t = 0; t < 16; t++, at += 4) {
      w[t] = (data[at]! << 24) | (data[at + 1]! << 16) | (data[at + 2]! << 8) | data[at + 3]!;
    }
    for (let t = 16; t < 64; t++) {
      const x = w[t - 15]!;
      const y = w[t - 2]!;
      const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
      const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
      w[t] = s1 + w[t - 7]! + s0 + w[t - 16]!;
    }
    let [a, b, c, d, e, f, g, h] = state as unknown as number[];
    for (let t = 0; t < 64; t++) {
      const s1 = ((e! >>> 6) | (e! << 26)) ^ ((e! >>> 11) | (e! << 21)) ^ ((e! >>> 25) | (e! << 7));
      const t1 = (h! + s1 + ((e! & f!) ^ (~e! & g!)) + K[t]! + w[t]!) | 0;
      const s0 = ((a! >>> 2) | (a! << 30)) ^ ((a! >>> 13) | (a! << 19)) ^ ((a! >>> 22) | (a! << 10));
      const t2 = (s0 + ((a! & b!) ^ (a! & c!) ^ (b! & c!))) | 0;
      h = g;
      g = f;
      f = e;
      e = (d! + t1) | 0;
      d = c;
      c = b;
      b = a;
      a = (t1 + t2) | 0;
    }
    // Int32Array stores wrap to 32 bits, which is the modular addition SHA-256 wants.
    state[0]! += a!;
    state[1]! += b!;
    state[2]! += c!;
    state[3]! += d!;
    state[4]! += e!;
    state[5]! += f!;
    state[6]! += g!;
    state[7]! += h!;
  };

  const sha: Sha256 = {
    update(data) {
      let used = length & 63;
      let i = 0;
      length += data.length;
      if (used) {
        i = Math.min(64 - used, data.length);
        block.set(data.subarray(0, i), used);
        used += i;
        if (used < 64) return sha;
        compress(block, 0);
      }
      // Whole blocks are read where they lie: no copy of the body.
      for (; i + 64 <= data.length; i += 64) compress(data, i);
      block.set(data.subarray(i));
      return sha;
    },
    digest() {
      const total = length;
      // 0x80, zeros up to 56 mod 64, then the bit length as a 64-bit big-endian integer.
      const pad = new Uint8Array(((55 - total) & 63) + 9);
      const view = new DataView(pad.buffer);
      pad[0] = 0x80;
      view.setUint32(pad.length - 8, total / 2 ** 29);
      view.setUint32(pad.length - 4, total * 8);
      sha.update(pad);
      const out = new Uint8Array(32);
      const outView = new DataView(out.buffer);
      for (let i = 0; i < 8; i++) outView.setInt32(4 * i, state[i]!);
      return out;
    },
  };
  return sha;
}

/** HMAC-SHA256 (RFC 2104) of the concatenation of `parts`, each streamed without copying. */
export function hmacSha256(key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const pad = new Uint8Array(64);
  pad.set(key.length > 64 ? createSha256().update(key).digest() : key);
  for (let i = 0; i < 64; i++) pad[i]! ^= 0x36;
  const inner = createSha256().update(pad);
  for (const part of parts) inner.update(part);
  const innerDigest = inner.digest();
  for (let i = 0; i < 64; i++) pad[i]! ^= 0x36 ^ 0x5c;
  return createSha256().update(pad).update(innerDigest).digest();
}

/** The pure-JS HMAC bound for the synchronous functions of the Web build. */
export const pureJsHmac: SyncHmac = {
  mac: (secret, prefix, body) => hmacSha256(utf8(secret), prefix, body),
  equal: timingSafeEqualBytes,
};
