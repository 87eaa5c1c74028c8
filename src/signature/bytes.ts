/**
 * The raw body exactly as it arrived: a string (UTF-8 encoded once, as a sender would), or the
 * bytes themselves (`Uint8Array`, Node `Buffer`, `ArrayBuffer`). Bytes are used as they are, never
 * decoded, so a body that is not valid UTF-8 verifies only against its own bytes.
 */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** Said when a body is of another type, typically JSON a framework has already parsed. */
export const BODY_TYPE_MESSAGE = 'rawBody must be the unparsed body: string, Uint8Array or ArrayBuffer';

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as in every HTTP client). */
export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);

/**
 * The body as bytes without copying them, or `undefined` when it is not a string, a byte view or
 * an ArrayBuffer (a parsed JSON object, say). Never throws: a detached buffer is `undefined` too.
 * The tag test, unlike `instanceof`, also accepts an ArrayBuffer from another realm (iframe,
 * node:vm). `encode` lets the Node build hand a string to OpenSSL as it is.
 */
export function toBytes<Text = never>(
  body: unknown,
  encode: (text: string) => Uint8Array | Text = utf8,
): Uint8Array | Text | undefined {
  try {
    if (typeof body === 'string') return encode(body);
    if (ArrayBuffer.isView(body)) {
      return body instanceof Uint8Array
        ? body
        : new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    }
    if (Object.prototype.toString.call(body) === '[object ArrayBuffer]')
      return new Uint8Array(body as ArrayBuffer);
  } catch {}
  return undefined;
}

/** Lowercase hex, the `v1` encoding. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += (byte < 16 ? '0' : '') + byte.toString(16);
  return hex;
}

// Candidates are decoded one at a time and compared at once, so one buffer serves them all.
const scratch = new Uint8Array(32);

/**
 * The 32 bytes of a `v1` of exactly 64 hex digits (either case), or `undefined` for any other
 * value: such a candidate can never match, and its shape is public, so rejecting it early leaks
 * nothing secret. The bytes are written to a shared buffer, valid until the next call. The value
 * of a digit `c` is `(c & 15) + 9 * (c >> 6)`: digits have bit 6 clear, letters of either case
 * have it set and count from 1 for a/A in their low four bits.
 */
export function fromHex(hex: string): Uint8Array | undefined {
  let bad = hex.length ^ 64;
  for (let i = 0; i < 64 && !bad; i++) {
    const c = hex.charCodeAt(i);
    // Not 0-9 (48-57) and not a-f/A-F (65-70 and 97-102 share c | 32).
    bad = +((c - 48) >>> 0 > 9 && ((c | 32) - 97) >>> 0 > 5);
    scratch[i >> 1] = (scratch[i >> 1]! << 4) | ((c & 15) + 9 * (c >> 6));
  }
  return bad ? undefined : scratch;
}

/**
 * Equality whose time depends only on the length: the XOR of every byte pair is accumulated, so
 * the position of the first difference is never observable.
 */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
