/**
 * The raw body exactly as it arrived: a string (UTF-8 encoded once, as a sender would), or the
 * bytes themselves (`Uint8Array`, Node `Buffer`, `ArrayBuffer`). Bytes are used as they are, never
 * decoded, so a body that is not valid UTF-8 verifies only against its own bytes.
 *
 * @example
 * ```ts
 * import type { RawBody } from 'loyalty-partner-sdk/signature';
 * const bodies: RawBody[] = ['{"a":1}', new TextEncoder().encode('{"a":1}'), new ArrayBuffer(0)];
 * ```
 */
export type RawBody = string | Uint8Array | ArrayBuffer;

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as in every HTTP client). */
export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);

/**
 * The body as bytes without copying, or `undefined` when it is not a string, a byte view or an
 * ArrayBuffer. `encode` lets the Node build hand a string to OpenSSL as it is; `ArrayBuffer.isView`
 * also recognises views from another realm (iframe, node:vm).
 */
export function toBytes<Text = never>(
  body: unknown,
  encode: (text: string) => Uint8Array | Text = utf8,
): Uint8Array | Text | undefined {
  const view = body as ArrayBufferView;
  return typeof body === 'string'
    ? encode(body)
    : body instanceof Uint8Array
      ? body
      : ArrayBuffer.isView(body) || body instanceof ArrayBuffer
        ? new Uint8Array(view.buffer ?? body, view.byteOffset, view.byteLength)
        : undefined;
}

// The 256 byte values as two lowercase hex digits, for toHex.
const HEX = Array.from({ length: 256 }, (_, byte) => (byte | 256).toString(16).slice(1));

/** Lowercase hex, the `v1` encoding. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (let i = 0; i < bytes.length; i++) hex += HEX[bytes[i]!];
  return hex;
}

/**
 * Whether a `v1` candidate is exactly 64 hex digits, in either case, equal to `mac`, in constant
 * time: faults and differences are accumulated over every character, so the position of the first
 * difference is never observable. Comparing hex spares decoding each candidate.
 */
export function equalHex(mac: string, candidate: string): boolean {
  if (candidate.length !== 64 || mac.length !== 64) return false;
  let faults = 0;
  let diff = 0;
  for (let i = 0; i < 64; i++) {
    const c = candidate.charCodeAt(i);
    const lower = c | 0x20; // 'A'-'F' to 'a'-'f', and nothing else into that range
    faults |= (c - 48) >>> 0 < 10 || (lower - 97) >>> 0 < 6 ? 0 : 1;
    diff |= mac.charCodeAt(i) ^ lower;
  }
  return (faults | diff) === 0;
}
