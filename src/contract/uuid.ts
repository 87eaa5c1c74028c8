/**
 * UUIDs from the runtime's `crypto.getRandomValues` (Node 20+, Deno, Bun, Workers, browsers),
 * written here rather than imported: the `uuid` package cost the root entry about 10 ms of a
 * fresh process's start-up for two short functions.
 */

const hex = Array.from({ length: 256 }, (_, byte) => (byte | 256).toString(16).slice(1));

function format(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) out += '-';
    out += hex[bytes[i]!];
  }
  return out;
}

// Random bytes drawn from the CSPRNG 4 KiB at a time and handed out 16 at a time, never twice:
// each `getRandomValues` call costs a few microseconds of fixed overhead in Node (most of the CPU
// of building an envelope), whatever its size. The `uuid` package pools the same way.
const POOL_BYTES = 4096;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** 16 fresh random bytes, copied out of the pool (callers modify them). */
function randomBytes16(): Uint8Array {
  if (poolOffset + 16 > POOL_BYTES) {
    crypto.getRandomValues(pool);
    poolOffset = 0;
  }
  const bytes = pool.slice(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return bytes;
}

/** A random UUID version 4 (RFC 9562), as `crypto.randomUUID()`, which insecure browser pages lack. */
export function uuidV4(): string {
  const bytes = randomBytes16();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return format(bytes);
}

// The last timestamp used and the 12-bit sequence within it (RFC 9562 6.2, method 1), so that
// ids made in the same millisecond still sort in creation order.
let lastMs = -1;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, then a 12-bit sequence that starts
 * at a random value below 2048 each millisecond and counts up within it (borrowing the next
 * millisecond if it ever runs out), then 62 random bits. Ids of one process sort in creation order.
 */
export function uuidV7(now: number = Date.now()): string {
  // Bytes 6 and 7 of the random draw are overwritten below by the version and sequence: when a
  // new millisecond starts, they first seed its sequence.
  const bytes = randomBytes16();
  if (now > lastMs) {
    lastMs = now;
    sequence = ((bytes[6]! << 8) | bytes[7]!) & 0x7ff;
  } else if (++sequence > 0xfff) {
    lastMs += 1;
    sequence = 0;
  }
  const ms = lastMs;
  bytes[0] = Math.floor(ms / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(ms / 2 ** 32) & 0xff;
  bytes[2] = (ms >>> 24) & 0xff;
  bytes[3] = (ms >>> 16) & 0xff;
  bytes[4] = (ms >>> 8) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return format(bytes);
}
