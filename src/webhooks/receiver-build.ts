import { verifySignatureAsync } from '../signature/verify-async.js';
import type { ParsedDelivery } from './parse-delivery.js';
import type { SignatureVerifier } from './verify-delivery.js';

/** Reads a verified body as an envelope of the contract (see parse-delivery.ts). */
export type DeliveryParser = (rawBody: unknown) => ParsedDelivery;

/**
 * What differs between the builds of the receiver: how it verifies a signature and which
 * schemas it validates envelopes with. The receiver core is the same code in both.
 */
export interface ReceiverBuild {
  /** Web Crypto in the Web build, which runs everywhere; Node crypto in the `node` build, synchronous and faster. */
  verify: SignatureVerifier;
  /**
   * Loads the envelope parser once, on the first verified delivery, so zod stays off the import
   * path (a serverless cold start). The `node` build compiles the schemas with zod
   * (`platform-node/compiled-envelopes.ts`); edge runtimes may forbid generating code.
   */
  loadParser: () => Promise<DeliveryParser>;
}

/** The Web build, for `createReceiver` of `loyalty-partner-sdk/webhooks` outside Node. */
export const WEB_BUILD: ReceiverBuild = {
  verify: verifySignatureAsync,
  async loadParser() {
    const { parseDelivery, contractEnvelopeSchema } = await import('./parse-delivery.js');
    return (rawBody) => parseDelivery(rawBody, contractEnvelopeSchema);
  },
};
