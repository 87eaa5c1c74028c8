import type { PayloadSchemaOf } from '../contract/validate.js';
import { signWithAsync } from '../signature/sign.js';
import { webCryptoHmac } from '../signature/web-crypto-hmac.js';
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
  /**
   * Lets `signal` carry one abort listener per call in flight: Node warns past 10, and the client's
   * own signal legitimately has one per call under way.
   */
  allowManyListeners?(signal: AbortSignal): void;
  /** Where `send` finds a payload's schema (the Node build's are compiled); default: the contract's. */
  payloadSchemaOf?: PayloadSchemaOf;
}

/** Web build: `globalThis.fetch` and Web Crypto's HMAC, the one every Web runtime has. */
export const webPlatform: ClientPlatform = {
  createTransport: (settings) => createFetchTransport(settings),
  sign: (body, secrets, timestamp) => signWithAsync(webCryptoHmac, body, secrets, { timestamp }),
  runtime: webRuntime,
};
