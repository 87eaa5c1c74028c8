/**
 * What the verification core needs from an HMAC-SHA256 implementation. The core is written once
 * against these two shapes; each build binds its own: Node crypto, the portable pure-JS one, or
 * Web Crypto for the async functions.
 *
 * `mac` covers `prefix` then `body` as one message (two `update` calls where the engine streams),
 * so the body is never copied or concatenated into a string. `equal` compares two 32-byte digests
 * in constant time.
 */
export interface SyncHmac {
  mac(secret: string, prefix: Uint8Array, body: Uint8Array): Uint8Array;
  equal(a: Uint8Array, b: Uint8Array): boolean;
}

/** The asynchronous counterpart of {@link SyncHmac} (Web Crypto only signs asynchronously). */
export interface AsyncHmac {
  mac(secret: string, prefix: Uint8Array, body: Uint8Array): Promise<Uint8Array>;
  equal(a: Uint8Array, b: Uint8Array): boolean;
}
