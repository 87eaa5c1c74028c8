import { setMaxListeners } from 'node:events';
import { LoyaltyClient as CoreLoyaltyClient } from '../client/loyalty-client.js';
import type { ClientPlatform } from '../client/platform.js';
import { compiledPayloadSchema } from './compiled-schemas.js';
import { createNodeTransport } from './node-transport.js';
import { signPayload } from './signature.js';

/**
 * Node build: undici with its own keep-alive agent (else the runtime's fetch), Node's HMAC, and
 * payload schemas zod compiled.
 */
const nodePlatform: ClientPlatform = {
  createTransport: createNodeTransport,
  sign: (body, secrets, timestamp) => signPayload(body, secrets, { timestamp }),
  runtime: () => `node/${process.versions.node}`,
  // 0: no limit. Each listener is removed as its wait or call ends (client/abort.ts), so none leak.
  allowManyListeners: (signal) => setMaxListeners(0, signal),
  payloadSchemaOf: compiledPayloadSchema,
};

/**
 * `LoyaltyClient` as the `node` export condition serves it: the same client core, sending through
 * its own undici `Agent` (keep-alive, at most `connections` sockets) and signing with Node crypto.
 * It extends the Web build's class, so `instanceof` holds against either.
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example.com', apiKey: 'key', signingSecret: 'secret' });
 * await client.send('CustomerSynced', { externalCustomerId: 'c-42', phone: '+966500000000' });
 * await client.close(); // closes the agent's sockets
 * ```
 */
export class LoyaltyClient extends CoreLoyaltyClient {
  protected static override readonly platform: ClientPlatform = nodePlatform;
}
