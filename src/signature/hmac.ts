/**
 * What the signing and verification core needs from an HMAC-SHA256 implementation. The core is
 * written once against these shapes; each build binds its own: Node crypto for the synchronous
 * functions of the Node build, Web Crypto for the async functions of every build.
 *
 * `mac` covers the ASCII prefix `<t>.` then `body` as one message (two `update` calls where the
 * engine streams), so the body is never copied or joined into a string. The prefix is handed over
 * as the digits of `t` because each engine takes its own fastest route to bytes (Node's `update`
 * takes the string directly). `equal` compares a MAC with a `v1` candidate decoded to its 32
 * bytes, in constant time (Node's `crypto.timingSafeEqual` in the Node build, `timingSafeEqualBytes`
 * elsewhere). `Mac` is how the engine holds its digest (bytes: a `Buffer` in the Node build).
 *
 * A string body is UTF-8 encoded once by the core before `mac` sees it, unless the
 * implementation has a `text` hook: Node's returns the string itself, since its `update`
 * encodes natively without a JavaScript copy (`Text` is then `string`).
 */
export interface SyncHmac<Text = never, Mac = Uint8Array> {
  mac(secret: string, t: string, body: Uint8Array | Text): Mac;
  /** Constant-time equality of a MAC and a candidate decoded to its 32 bytes. */
  equal(mac: Mac, candidate: Uint8Array): boolean;
  text?: (body: string) => Uint8Array | Text;
  /**
   * Decodes a `v1` candidate of exactly 64 hex digits to its 32 bytes, `undefined` for any other
   * value; the JavaScript decoder by default.
   */
  fromHex?: (hex: string) => Uint8Array | undefined;
  /** Encodes a MAC as lowercase hex for the `v1` of a signature; JS by default. */
  toHex?: (mac: Mac) => string;
  /**
   * `mac` already as lowercase hex, for signing only (verification compares bytes), where the
   * engine encodes natively; else signing takes `mac` through `toHex`.
   */
  hexMac?: (secret: string, t: string, body: Uint8Array | Text) => string;
}

/** The asynchronous counterpart of {@link SyncHmac} (Web Crypto only signs asynchronously). */
export interface AsyncHmac {
  mac(secret: string, t: string, body: Uint8Array): Promise<Uint8Array>;
  equal(a: Uint8Array, b: Uint8Array): boolean;
}
