/**
 * What a caller does about an error code. The client's retry decisions, the outbox's parking
 * and the README's error table are all derived from this one field.
 *
 * - `retry`: transient; retry the same event (same `eventId`) with backoff.
 * - `fix-setup`: the merchant's or partner's setup is incomplete; fix it, then redeliver the
 *   same event (failed deliveries are never cached, so redelivery is processed afresh).
 * - `fix-payload`: the event is defective; fix the data and send a new event.
 * - `stop`: do not send this event again; nothing will change the answer.
 * - `reauthenticate`: the API key, signing secret or credentials are wrong or revoked.
 * - `check-clock`: the signature timestamp is outside the 300 s tolerance.
 */
export type ErrorAction = 'retry' | 'fix-setup' | 'fix-payload' | 'stop' | 'reauthenticate' | 'check-clock';

/** One row of the error catalogue. */
export interface ErrorCodeInfo {
  /** HTTP status the service answers with. */
  readonly status: 400 | 401 | 422 | 503;
  readonly action: ErrorAction;
  /** `true` when retrying the same event can succeed without anybody changing anything (`retry`). */
  readonly retryable: boolean;
  /** `true` for codes of the planned synchronous endpoints that no live endpoint returns yet. */
  readonly planned?: boolean;
  /**
   * `true` when the answer is about the merchant's integration or credentials, not about the event:
   * every event of the tenant gets it until something changes, so a queue pauses or stops the whole
   * tenant instead of retrying, parking or dropping events one by one.
   */
  readonly tenantWide?: boolean;
  /** The condition, in the contract's words. */
  readonly condition: string;
  /** What the caller should do, for people reading logs and docs. */
  readonly remedy: string;
}

/** The catalogue as written: `retryable` follows from `action`, so it is added below. */
const ROWS = {
  MISSING_API_KEY: {
    status: 401,
    action: 'reauthenticate',
    tenantWide: true,
    condition: '`X-Api-Key` header absent',
    remedy: 'Configure the API key issued at activation.',
  },
  INVALID_API_KEY: {
    status: 401,
    action: 'reauthenticate',
    tenantWide: true,
    condition: 'key unknown, revoked, or from the wrong environment',
    remedy: 'Check the key and that it belongs to this environment (testing or production).',
  },
  INVALID_SIGNATURE: {
    status: 401,
    action: 'reauthenticate',
    tenantWide: true,
    condition: 'HMAC does not match the raw body under any active signing secret',
    remedy: 'Check the signing secret; sign the exact bytes you send.',
  },
  SIGNATURE_EXPIRED: {
    status: 401,
    action: 'check-clock',
    condition: 'signature timestamp outside the 5-minute tolerance',
    remedy:
      "Synchronise the clock (NTP). The client corrects its offset from the response's Date and retries once.",
  },
  INTEGRATION_NOT_CONNECTED: {
    status: 401,
    action: 'fix-setup',
    tenantWide: true,
    condition: 'merchant never activated the integration',
    remedy: 'Ask the merchant to activate the integration, then redeliver.',
  },
  INTEGRATION_ALREADY_DISCONNECTED: {
    status: 401,
    action: 'reauthenticate',
    tenantWide: true,
    condition: 'merchant disconnected; fresh credentials required',
    remedy: 'Stop sending for this merchant until it reconnects with fresh credentials.',
  },
  INTEGRATION_PAUSED: {
    status: 503,
    action: 'retry',
    tenantWide: true,
    condition: 'merchant paused the integration; retry',
    remedy: 'Retry with backoff; the outbox pauses the whole tenant and probes slowly.',
  },
  MISSING_IDEMPOTENCY_KEY: {
    status: 400,
    action: 'fix-payload',
    planned: true,
    condition: 'planned; reserved for the upcoming synchronous write endpoints',
    remedy: 'Send an Idempotency-Key header (client.request() adds one).',
  },
  UNKNOWN_EVENT_TYPE: {
    status: 400,
    action: 'stop',
    condition: '`eventType` is not recognised',
    remedy: 'Send one of the contract event types; this event will never be accepted.',
  },
  INVALID_PAYLOAD: {
    status: 400,
    action: 'fix-payload',
    condition: 'body is not valid JSON or lacks required fields',
    remedy: 'Fix the data and send a new event.',
  },
  INVALID_REQUEST: {
    status: 400,
    action: 'fix-payload',
    condition: 'invalid query parameters, for example neither or both of `phone` and `customerId`',
    remedy: 'Fix the request parameters.',
  },
  EVENT_HANDLER_NOT_REGISTERED: {
    status: 503,
    action: 'retry',
    condition: 'legitimate event type whose handler is not deployed; a later delivery will succeed',
    remedy: 'Retry later; Planned event types are declined until their handler ships.',
  },
  WRONG_EVENT_DIRECTION: {
    status: 400,
    action: 'stop',
    condition: 'an outbound event type was posted to `/events`',
    remedy: 'Stop retrying: the service sends this type, it never receives it.',
  },
  CUSTOMER_MAPPING_NOT_FOUND: {
    status: 400,
    action: 'fix-setup',
    condition: 'no mapping for `externalCustomerId`',
    remedy: 'Send CustomerSynced first, then redeliver the same event.',
  },
  BRANCH_MAPPING_NOT_FOUND: {
    status: 400,
    action: 'fix-setup',
    condition: 'no mapping for `externalBranchId`',
    remedy: 'Send BranchSynced first, then redeliver the same event.',
  },
  BRANCH_MAPPING_UNCONFIRMED: {
    status: 400,
    action: 'fix-setup',
    condition: 'branch known, but the merchant has not confirmed the pairing in the dashboard',
    remedy: 'Ask the merchant to confirm the branch pairing, then redeliver.',
  },
  CUSTOMER_INACTIVE: {
    status: 400,
    action: 'fix-setup',
    condition: 'the customer is frozen for this store',
    remedy: 'Redeliver after the merchant unfreezes the customer.',
  },
  MISSING_STAMP_CARD_ID: {
    status: 400,
    action: 'fix-payload',
    condition: '`earnType = Stamps` without `stampCardId`',
    remedy: 'Send stampCardId with Stamps earns (the SDK refuses this before sending).',
  },
  STAMP_CARD_NOT_FOUND: {
    status: 400,
    action: 'fix-payload',
    condition: '`stampCardId` unknown for this store',
    remedy: 'Use a stamp card id from the store’s LoyaltyRuleChanged (StampRule) events.',
  },
  STAMP_CARD_INACTIVE: {
    status: 400,
    action: 'fix-setup',
    condition: 'the stamp card is deactivated',
    remedy: 'Redeliver after the merchant reactivates the card.',
  },
  STAMP_CARD_FREE_ENTRY_ONLY: {
    status: 400,
    action: 'stop',
    condition:
      "the card's only earning method is `FreeEntry`; it can never be credited from a partner invoice",
    remedy: 'Do not send earns for this card.',
  },
  NO_ACTIVE_POINTS_PROGRAM: {
    status: 400,
    action: 'fix-setup',
    condition: 'the store has no active points program',
    remedy: 'Redeliver after the merchant activates a points program.',
  },
  NO_ACTIVE_EARNING_METHOD: {
    status: 400,
    action: 'fix-setup',
    condition: 'the points program or stamp card has no active earning method',
    remedy: 'Redeliver after the merchant activates an earning method.',
  },
  PARTNER_INVOICE_ALREADY_EARNED: {
    status: 400,
    action: 'stop',
    condition: '`externalInvoiceId` already credited, even under a new `eventId`',
    remedy: 'Nothing to do: the invoice was credited once already. Do not resend.',
  },
  SUBSCRIPTION_LAPSED: {
    status: 503,
    action: 'retry',
    tenantWide: true,
    condition: "the merchant's subscription is not active; a delivery after renewal succeeds",
    remedy: 'Retry with backoff; the outbox pauses the tenant and probes slowly.',
  },
  CONCURRENCY_CONFLICT: {
    status: 503,
    action: 'retry',
    condition: 'a concurrent ledger update collided',
    remedy: 'Retry with the same eventId.',
  },
} as const satisfies Record<string, Omit<ErrorCodeInfo, 'retryable'>>;

type WithRetryable<R extends { readonly action: ErrorAction }> = R & {
  readonly retryable: R['action'] extends 'retry' ? true : false;
};

/**
 * Every error code of spec sections 7.1 and 7.2 with its status and the caller's action.
 *
 * @example
 * ```ts
 * import { ERROR_CODES } from 'loyalty-partner-sdk';
 * ERROR_CODES.CONCURRENCY_CONFLICT.action; // 'retry'
 * ERROR_CODES.BRANCH_MAPPING_UNCONFIRMED.action; // 'fix-setup'
 * ```
 */
export const ERROR_CODES = Object.fromEntries(
  Object.entries(ROWS).map(([code, row]) => [code, { ...row, retryable: row.action === 'retry' }]),
) as { readonly [Code in keyof typeof ROWS]: WithRetryable<(typeof ROWS)[Code]> };

/** Every error code of the contract. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Narrows an unknown value to an error code of the catalogue. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

/**
 * The catalogue row of a code, or `undefined` for a code this version does not know (a newer
 * service may add codes: fall back to the HTTP status then).
 */
export function errorCodeInfo(code: string | undefined): ErrorCodeInfo | undefined {
  return isErrorCode(code) ? ERROR_CODES[code] : undefined;
}
