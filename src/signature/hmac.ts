/**
 * An HMAC-SHA256 as signing and verification use it: Node crypto (sync, `M` the MAC) or Web Crypto
 * (async, `M` a promise of it). `mac` covers `<t>.` then `body` without joining them, and returns
 * the `v1` hex that verification compares in constant time (`equalHex`). With a `text` hook a
 * string body goes to the engine as it is (Node's `update` encodes natively); otherwise the core
 * UTF-8 encodes it once.
 */
export interface MacEngine<Text, M> {
  mac(secret: string, t: string, body: Uint8Array | Text): M;
  text?: (body: string) => Uint8Array | Text;
}

/** A synchronous HMAC (Node crypto). */
export type SyncHmac<Text = never> = MacEngine<Text, string>;

/** An asynchronous HMAC (Web Crypto only signs asynchronously). */
export type AsyncHmac = MacEngine<never, Promise<string>>;
