/**
 * What the signing core needs from an HMAC-SHA256: Node crypto (sync) or Web Crypto (async).
 * `mac` covers `<t>.` then `body` without joining them, and returns the `v1` hex that verification
 * compares in constant time (`equalHex`). With a `text` hook a string body goes to the engine as
 * it is (Node's `update` encodes natively); otherwise the core UTF-8 encodes it once.
 */
export interface SyncHmac<Text = never> {
  mac(secret: string, t: string, body: Uint8Array | Text): string;
  text?: (body: string) => Uint8Array | Text;
}

/** The asynchronous counterpart of {@link SyncHmac} (Web Crypto only signs asynchronously). */
export interface AsyncHmac {
  mac(secret: string, t: string, body: Uint8Array): Promise<string>;
}
