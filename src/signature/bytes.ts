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

/** Said when a body is of another type, typically JSON a framework has already parsed. */
export const BODY_TYPE_MESSAGE = 'rawBody must be a string, Uint8Array or ArrayBuffer';

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (lone surrogates become U+FFFD, as in every HTTP client). */
export const utf8 = (text: string): Uint8Array<ArrayBuffer> => encoder.encode(text);

/**
 * The body as bytes without copying them, or `undefined` when it is not a string, a byte view or
 * an ArrayBuffer (a parsed JSON object, say). `encode` lets the Node build hand a string to
 * OpenSSL as it is. `ArrayBuffer.isView` also recognises views from another realm (iframe,
 * node:vm); for an ArrayBuffer itself, `buffer` is undefined and the offsets default to all of
 * it.
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

/** Lowercase hex, the `v1` encoding. */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => (byte | 256).toString(16).slice(1)).join('');

/**
 * The 32 bytes of a `v1` of exactly 64 hex digits (either case), or `undefined` for any other
 * value: such a candidate can never match, and its shape is public, so rejecting it early leaks
 * nothing secret. Written small rather than fast: the Node build decodes natively, and only the
 * Web build runs this.
 */
export const fromHex = (hex: string): Uint8Array | undefined =>
  /^[\da-f]{64}$/i.test(hex)
    ? Uint8Array.from(hex.match(/../g)!, (pair) => Number.parseInt(pair, 16))
    : undefined;

/**
 * Equality whose time depends only on the length: the XOR of every byte pair is accumulated, so
 * the position of the first difference is never observable.
 */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
