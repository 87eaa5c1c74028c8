import { toHex, utf8 } from './bytes.js';
import type { AsyncHmac } from './hmac.js';

// Importing a key costs about as much as signing a small body, and a receiver verifies under the
// same few secrets all day: keep the imported keys, in a map bounded so that a process serving
// many tenants cannot grow it without limit (when full it starts over).
const MAX_CACHED_KEYS = 32;
const keys = new Map<string, Promise<CryptoKey>>();

/** HMAC-SHA256 through Web Crypto: every runtime has it, but only asynchronously. */
export const webCryptoHmac: AsyncHmac = {
  async mac(secret, t, body) {
    // Reached at call time, not import time: importing this module never fails anywhere.
    const { subtle } = crypto;
    if (!keys.has(secret)) {
      if (keys.size >= MAX_CACHED_KEYS) keys.clear();
      keys.set(
        secret,
        subtle.importKey('raw', utf8(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']),
      );
    }
    // Web Crypto takes one buffer, so this is the one place the body is copied.
    const prefix = utf8(`${t}.`);
    const message = new Uint8Array(prefix.length + body.length);
    message.set(prefix);
    message.set(body, prefix.length);
    return toHex(new Uint8Array(await subtle.sign('HMAC', (await keys.get(secret))!, message)));
  },
};
