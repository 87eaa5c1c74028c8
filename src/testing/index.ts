/**
 * `loyalty-partner-sdk/testing`: a local emulator of the Loyalty service, msw handlers, test
 * signatures and sample payloads. For tests, demos and the CLI; nothing else in the SDK imports it.
 *
 * @module loyalty-partner-sdk/testing
 */

export type { CheckReceiverOptions, CheckReceiverReport, ReceiverCaseResult } from './check-receiver.js';
export { checkReceiver } from './check-receiver.js';
export { WEBHOOK_RETRY_LADDER_MS } from './delivery-ladder.js';
export { createEmulator } from './emulator.js';
export type { Emulator } from './emulator-api.js';
export { EmulatorError } from './emulator-error.js';
export type { EmulatorOptions } from './emulator-options.js';
export type { FaultKind, FaultOptions } from './faults.js';
export type { EmulatorInspection } from './inspection.js';
export type { MerchantActions } from './merchant-actions.js';
export type { MerchantCredentials, MerchantOptions } from './merchant-store.js';
export type { CustomerLookupBody } from './partner-endpoints.js';
export type {
  ReceiverCase,
  ReceiverCaseInput,
  ReceiverCaseRequest,
  ReceiverVerdict,
} from './receiver-cases.js';
export { receiverCases } from './receiver-cases.js';
export type { ReceiverVector } from './receiver-vectors.js';
export { receiverVectors } from './receiver-vectors.js';
export { DEFAULT_RULES } from './rules.js';
export { samplePayload } from './sample-payloads.js';
export { signTestHeader } from './sign-test-header.js';
