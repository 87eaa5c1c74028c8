import { createHmac } from 'node:crypto';
import type { SyncHmac } from '../signature/hmac.js';

/**
 * HMAC-SHA256 on Node's `createHmac`: synchronous, so the Node build's `signPayload` and
 * `verifySignature` return directly. A string body goes to `update` as it is (Node writes UTF-8,
 * lone surrogates as U+FFFD, as every HTTP client sends them).
 */
export const nodeHmac: SyncHmac<string> = {
  mac: (secret, t, body) => createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex'),
  text: (body) => body,
};
