import { createHmac } from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

/**
 * HMAC-SHA256 on Node's `createHmac` (OpenSSL), synchronous: what lets the Node build's
 * `signPayload` and `verifySignature` return directly, where Web Crypto can only answer with a
 * promise. A string body is handed to `update` as it is: Node writes it as UTF-8 itself (lone
 * surrogates become U+FFFD, as every HTTP client sends them). The MAC is 64 lowercase hex digits,
 * the `v1` encoding.
 */
export const nodeHmac: SyncHmac<string> = {
  mac: (secret, t, body) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'),
  text: (body) => body,
};
