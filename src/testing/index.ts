/**
 * `loyalty-partner-sdk/testing`: a local emulator of the Loyalty service, msw handlers, test
 * signatures and sample payloads. For tests, demos and the CLI; nothing else in the SDK imports it.
 *
 * @packageDocumentation
 */
export { CONTROL_BASE_PATH } from './control/control-api.js';
export type { AttemptVerdict } from './delivery-ladder.js';
export { WEBHOOK_RETRY_LADDER_MS } from './delivery-ladder.js';
export { createEmulator } from './emulator.js';
export type { Emulator, ShippableEventType } from './emulator-api.js';
export type { EmulatorErrorCode } from './emulator-error.js';
export { EmulatorError } from './emulator-error.js';
export type { EmulatorOptions, Environment } from './emulator-options.js';
export type { FaultEndpoint, FaultKind, FaultOptions, ServiceUnavailableCode } from './faults.js';
export { FAULT_CLOCK_SKEW_SECONDS } from './faults.js';
export type { ListenOptions } from './http-server.js';
export type { DeliveryFilter, EmulatorInspection, MerchantState, RequestFilter } from './inspection.js';
export type { Balance } from './ledger.js';
export type {
  BranchRecord,
  ConnectionState,
  CouponUsageRecord,
  CustomerRecord,
  IntegrationStatus,
  InvoiceRecord,
  LedgerEntry,
  RedemptionRecord,
  RefundRecord,
} from './merchant.js';
export type { MerchantActions } from './merchant-actions.js';
export type { MerchantCredentials, MerchantOptions } from './merchant-store.js';
export type { MswHandler } from './msw-handlers.js';
export type { ConnectionBody, CustomerLookupBody } from './partner-endpoints.js';
export { PLANNED_SYNC_PATHS } from './partner-endpoints.js';
export type { RedemptionInput } from './redemptions.js';
export type { Endpoint, RequestRecord } from './request-router.js';
export { PARTNER_BASE_PATH } from './request-router.js';
export { RESPONSE_CACHE_TTL_MS } from './response-cache.js';
export type {
  EarnRateRule,
  MerchantRules,
  RuleChange,
  StampCardRule,
  StoredEarnRate,
  StoredStampCard,
} from './rules.js';
export { DEFAULT_RULES } from './rules.js';
export { samplePayload } from './sample-payloads.js';
export type { SignTestHeaderOptions } from './sign-test-header.js';
export { signTestHeader } from './sign-test-header.js';
export type { Delivery, DeliveryAttempt, DeliveryStatus } from './webhook-dispatcher.js';
