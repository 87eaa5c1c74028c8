import { pureJsHmac } from '../signature/sha256.js';
import { signWith } from '../signature/sign.js';
import type { Signer } from './attempt.js';
import { createFetchTransport } from './fetch-transport.js';
import type { Transport, TransportSettings } from './transport.js';
import { webRuntime } from './user-agent.js';

/**
 * What a build plugs into the one client core: its default transport, its synchronous HMAC and
 * the runtime named in `User-Agent`. The Web build's is below; the Node build's lives in
 * `platform-node/client.ts`, so no `node:*` or undici ever reaches a browser bundle.
 */
export interface ClientPlatform {
  createTransport(settings: TransportSettings): Transport;
  sign: Signer;
  runtime(): string;
}

/** Web build: `globalThis.fetch` and the portable pure-JS HMAC-SHA256 (signing must be sync). */
export const webPlatform: ClientPlatform = {
  createTransport: () => createFetchTransport(),
  sign: (body, secrets, timestamp) => signWith(pureJsHmac, body, secrets, { timestamp }),
  runtime: webRuntime,
};
