import { verifySignatureAsync } from '../signature/verify-async.js';
import { contractEnvelopeSchema, type EnvelopeSchemaOf } from './parse-delivery.js';
import type { SignatureVerifier } from './verify-delivery.js';

/**
 * What differs between the builds of the receiver: how it verifies a signature and which
 * schemas it validates envelopes with. The receiver core is the same code in both.
 */
export interface ReceiverBuild {
  /** Web Crypto in the Web build, which runs everywhere; Node crypto in the `node` build, synchronous and faster. */
  verify: SignatureVerifier;
  /**
   * The contract's schemas in the Web build; in the `node` build the same schemas compiled by zod
   * (`platform-node/compiled-envelopes.ts`), since edge runtimes may forbid generating code.
   */
  envelopeSchemaOf: EnvelopeSchemaOf;
}

/** The Web build, for `createReceiver` of `loyalty-partner-sdk/webhooks` outside Node. */
export const WEB_BUILD: ReceiverBuild = {
  verify: verifySignatureAsync,
  envelopeSchemaOf: contractEnvelopeSchema,
};
