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
    return typeof body === 'string'
      ? encode(body)
      : body instanceof Uint8Array
        ? body
        : ArrayBuffer.isView(body)
          ? new Uint8Array(body.buffer, body.byteOffset, body.byteLength)
          : Object.prototype.toString.call(body) === '[object ArrayBuffer]'
            ? new Uint8Array(body as ArrayBuffer)
            : undefined;
  } catch {
    return undefined;
  }
}

/** Lowercase hex, the `v1` encoding. */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (byte) => (byte | 256).toString(16).slice(1)).join('');

// Candidates are decoded one at a time and compared at once, so one buffer serves them all.
const scratch = new Uint8Array(32);

/**
 * The 32 bytes of a `v1` of exactly 64 hex digits (either case), or `undefined` for any other
 * value: such a candidate can never match, and its shape is public, so rejecting it early leaks
 * nothing secret. The bytes are written to a shared buffer, valid until the next call. Written
 * small rather than fast: the Node build decodes natively, only the Web build runs this.
 */
export function fromHex(hex: string): Uint8Array | undefined {
  if (!/^[\da-f]{64}$/i.test(hex)) return undefined;
  for (let i = 0; i < 32; i++) scratch[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return scratch;
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
