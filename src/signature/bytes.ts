/**
 * The raw body exactly as it arrived: a string (UTF-8 encoded once, as a sender would), or the
 * bytes themselves (`Uint8Array`, Node `Buffer`, `ArrayBuffer`). Bytes are used as they are, never
 * decoded, so a body that is not valid UTF-8 verifies only against its own bytes.
 */
export type RawBody = string | Uint8Array | ArrayBuffer;

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as in every HTTP client). */
export const utf8 = (text: string): Uint8Array => encoder.encode(text);

// Brand check that also holds for an ArrayBuffer from another realm (iframe, node:vm), where
// `instanceof ArrayBuffer` is false; it throws for anything else.
const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, 'byteLength')!.get!;

/**
 * The body as bytes without copying them, or `undefined` when it is not a string, a byte view or
 * an ArrayBuffer (a parsed JSON object, say). Never throws: a detached buffer is `undefined` too.
 */
export function toBytes(body: unknown): Uint8Array | undefined {
  try {
    if (typeof body === 'string') return encoder.encode(body);
    if (body instanceof Uint8Array) return body;
    if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    arrayBufferLength.call(body);
    return new Uint8Array(body as ArrayBuffer);
  } catch {
    return undefined;
  }
}

/** The signed prefix `<t>.` as bytes; `t` is ASCII digits, so no encoder is needed. */
export function prefixBytes(t: string): Uint8Array {
  const bytes = new Uint8Array(t.length + 1);
  for (let i = 0; i < t.length; i++) bytes[i] = t.charCodeAt(i);
  bytes[t.length] = 46; // '.'
  return bytes;
}

/** Lowercase hex, the `v1` encoding. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += (byte < 16 ? '0' : '') + byte.toString(16);
  return hex;
}

// 0-15 for a hex digit of either case, -1 otherwise (so `hi | lo` is negative if either is bad).
function nibble(c: number): number {
  if (c > 47 && c < 58) return c - 48;
  const lower = c | 32;
  return lower > 96 && lower < 103 ? lower - 87 : -1;
}

/**
 * The 32 bytes of a 64-hex-digit `v1`, or `undefined` for any other value: such a candidate can
 * never match, and its shape is public, so rejecting it early leaks nothing.
 */
export function digestFromHex(hex: string): Uint8Array | undefined {
  if (hex.length !== 64) return undefined;
  const bytes = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    const hi = nibble(hex.charCodeAt(2 * i));
    const lo = nibble(hex.charCodeAt(2 * i + 1));
    if ((hi | lo) < 0) return undefined;
    bytes[i] = (hi << 4) | lo;
  }
  return bytes;
}

/**
 * Equality whose time depends only on the length: the XOR of every byte pair is accumulated, so
 * the position of the first difference is never observable.
 */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
