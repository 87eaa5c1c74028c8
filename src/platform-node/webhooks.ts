/**
 * `loyalty-partner-sdk/webhooks` under the `node` export condition: every name of the Web build,
 * with receivers that verify with Node's synchronous crypto and validate with zod-compiled
 * schemas (`compiled-envelopes.ts`).
 *
 * @module loyalty-partner-sdk/webhooks
 */

import { createVerify } from '../signature/verify.js';
import { createReceiverWith } from '../webhooks/create-receiver.js';
import type { ReceiverBuild } from '../webhooks/receiver-build.js';
import type { ReceiverOptions } from '../webhooks/receiver-options.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import { nodeHmac } from './node-hmac.js';

// The Web build's values listed one by one: a star re-export of `src/webhooks/index.ts` makes the
// bundler emit one more (empty) file every receiver loads (one-copy.test.ts: both export the same).
export { LoyaltyError, LoyaltyValidationError } from '../contract/errors.js';
export { isOutboundEventType, OUTBOUND_EVENT_TYPES } from '../contract/event-types.js';
export { SignatureVerificationError } from '../signature/errors.js';
export { correlationIdOf, errorResponse } from '../webhooks/answers.js';
export type * from '../webhooks/index.js';
export { memoryInbox } from '../webhooks/memory-inbox.js';
export { createRuleCache } from '../webhooks/rule-cache.js';
export { memoryRuleStore } from '../webhooks/rule-store.js';
export { WebhookError } from '../webhooks/webhook-error.js';

const NODE_BUILD: ReceiverBuild = {
  // `verifySignature` of the Node build, bound here rather than imported from `./signature.js`,
  // whose re-export of the signing half would load with every receiver.
  verify: createVerify(nodeHmac),
  // Loaded on the first verified delivery, as in the Web build: zod stays off the import path.
  async loadParser() {
    const [{ parseDelivery }, { compiledEnvelopeSchema }] = await Promise.all([
      import('../webhooks/parse-delivery.js'),
      import('./compiled-envelopes.js'),
    ]);
    return (rawBody) => parseDelivery(rawBody, compiledEnvelopeSchema);
  },
};

/**
 * Creates a webhook receiver, as the Web build's `createReceiver` does (same options, same
 * answers), verifying each delivery's signature with Node crypto.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS`, naming every option at fault
 *
 * @example
 * ```ts
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 * import { createNodeListener } from 'loyalty-partner-sdk/node';
 * import { createServer } from 'node:http';
 *
 * const receiver = createReceiver({
 *   secrets: process.env.LOYALTY_SIGNING_SECRET ?? '',
 *   handlers: { IntegrationStatusChanged: (event) => console.log(event.payload.status) },
 * });
 * createServer(createNodeListener(receiver)).listen(3000);
 * ```
 */
export function createReceiver<Tx = undefined>(options: ReceiverOptions<Tx>): Receiver {
  return createReceiverWith(NODE_BUILD, options);
}
