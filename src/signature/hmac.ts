/**
 * What the signing and verification core needs from an HMAC-SHA256 implementation. The core is
 * written once against these shapes; each build binds its own: Node crypto for the synchronous
 * functions of the Node build, Web Crypto for the async functions of every build.
 *
 * `mac` covers the ASCII prefix `<t>.` then `body` as one message (two `update` calls where the
 * engine streams), so the body is never copied or joined into a string. The prefix is handed over
 * as the digits of `t` because each engine takes its own fastest route to bytes (Node's `update`
 * takes the string directly). The MAC comes back as 64 lowercase hex digits, the `v1` encoding:
 * signing puts it in the header as it is, and verification compares it with each candidate in
 * constant time (`equalHex`), so no candidate is ever decoded to bytes.
 *
 * A string body is UTF-8 encoded once by the core before `mac` sees it, unless the
 * implementation has a `text` hook: Node's returns the string itself, since its `update`
 * encodes natively without a JavaScript copy (`Text` is then `string`).
 */
export interface SyncHmac<Text = never> {
  mac(secret: string, t: string, body: Uint8Array | Text): string;
  text?: (body: string) => Uint8Array | Text;
}

/** The asynchronous counterpart of {@link SyncHmac} (Web Crypto only signs asynchronously). */
export interface AsyncHmac {
  mac(secret: string, t: string, body: Uint8Array): Promise<string>;
}
