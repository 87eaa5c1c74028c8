import { ERROR_CODES } from '../contract/error-codes.js';

/** One row of {@link RECEIVER_ERROR_CODES}. */
export interface ReceiverErrorCodeInfo {
  /** The HTTP status the receiver answers with. */
  readonly status: 405 | 408 | 413 | 500 | 503;
  /** When the receiver answers it, for people reading logs and docs. */
  readonly condition: string;
}

/**
 * The codes a receiver answers with that the contract's catalogue does not hold (the partner's
 * receiver, not the service). A 5xx makes the service redeliver (spec 3.2); the 4xx are permanent.
 */
export const RECEIVER_ERROR_CODES = {
  EVENT_IN_PROGRESS: {
    status: 503,
    condition: 'another delivery of the same eventId is still being handled; the redelivery finds it done',
  },
  HANDLER_FAILED: {
    status: 500,
    condition: 'the handler (or onUnhandled) threw; the claim is released so a redelivery runs it again',
  },
  HANDLER_TIMEOUT: {
    status: 503,
    condition:
      'the handler (or onUnhandled) did not settle within handlerTimeoutMs; its claim is kept until it settles or the inbox lease ends',
  },
  SECRETS_UNAVAILABLE: {
    status: 503,
    condition:
      'the secrets resolver threw or did not answer within resolverTimeoutMs (a secret store that is down is not a wrong signature)',
  },
  INBOX_UNAVAILABLE: {
    status: 503,
    condition: "the inbox store's begin() threw, so the event was not claimed and the handler did not run",
  },
  SCHEMA_VERSION_UNSUPPORTED: {
    status: 503,
    condition:
      'the event has a schemaVersion this SDK does not know and no onUnhandled takes it (without deferred: the service retries it until the receiver is upgraded)',
  },
  RECEIVER_FAILED: {
    status: 500,
    condition: 'an unexpected failure inside the receiver itself (a bug: please report it)',
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    condition: 'the body is larger than the adapter’s maxBodyBytes; reading stopped at the limit',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    condition: 'the body did not arrive whole within the adapter’s bodyTimeoutMs; the connection is closed',
  },
  RAW_BODY_UNAVAILABLE: {
    status: 500,
    condition: 'a body parser consumed the request before the adapter and kept no raw bytes',
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    condition: 'the request is not a POST',
  },
} as const satisfies Record<string, ReceiverErrorCodeInfo>;

/** A code of the receiver's own catalogue. */
export type ReceiverErrorCode = keyof typeof RECEIVER_ERROR_CODES;

/** The contract codes a receiver answers with (their status comes from `ERROR_CODES`). */
type ContractAnswerCode = 'INVALID_SIGNATURE' | 'SIGNATURE_EXPIRED' | 'INVALID_PAYLOAD';

/**
 * Every `code` a receiver (or an adapter) answers with or reports to `onError`; the README's
 * answer tables give each one's status and meaning.
 *
 * @example
 * ```ts
 * import type { WebhookErrorCode } from 'loyalty-partner-sdk/webhooks';
 * const page = (code: WebhookErrorCode) => code === 'SECRETS_UNAVAILABLE' || code === 'RECEIVER_FAILED';
 * ```
 */
export type WebhookErrorCode = ReceiverErrorCode | ContractAnswerCode;

/** The HTTP status of an answer code, from whichever catalogue holds it. */
export function statusOf(code: WebhookErrorCode): number {
  return Object.hasOwn(RECEIVER_ERROR_CODES, code)
    ? RECEIVER_ERROR_CODES[code as ReceiverErrorCode].status
    : ERROR_CODES[code as ContractAnswerCode].status;
}
