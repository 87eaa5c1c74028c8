import type { LoyaltyValidationError } from '../contract/errors.js';
import { codedError } from '../contract/errors.js';
import type { SignatureVerificationError } from '../signature/errors.js';
import type { WebhookErrorCode } from './receiver-error-codes.js';

/** The codes of failures on the receiver's own side, as opposed to a bad delivery. */
type WebhookFailureCode = Extract<
  WebhookErrorCode,
  | 'HANDLER_FAILED'
  | 'HANDLER_TIMEOUT'
  | 'SECRETS_UNAVAILABLE'
  | 'INBOX_UNAVAILABLE'
  | 'SCHEMA_VERSION_UNSUPPORTED'
  | 'RECEIVER_FAILED'
>;

/**
 * A failure on the partner's side while a delivery was handled: the handler, the secrets resolver,
 * the inbox store or the receiver threw or did not settle in time. `cause` is what was thrown; it
 * reaches `onError` only, never the HTTP answer.
 *
 * @example
 * ```ts
 * import { createReceiver, WebhookError } from 'loyalty-partner-sdk/webhooks';
 * createReceiver({
 *   secrets: 'whsec_example',
 *   handlers: {},
 *   onError(err) {
 *     if (err instanceof WebhookError && err.code === 'HANDLER_FAILED') console.error(err.eventType, err.cause);
 *   },
 * });
 * ```
 */
export class WebhookError extends codedError('WebhookError') {
  readonly code: WebhookFailureCode;
  /** The event's type when the failure happened after the body was parsed. */
  readonly eventType: string | undefined;
  /** The event's id when the failure happened after the body was parsed. */
  readonly eventId: string | undefined;

  constructor(
    code: WebhookFailureCode,
    message: string,
    options: { cause?: unknown; eventType?: string | undefined; eventId?: string | undefined } = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.code = code;
    this.eventType = options.eventType;
    this.eventId = options.eventId;
  }
}

/**
 * What `onError` is told about: a refused signature, a body that is not a valid envelope
 * (`INVALID_PAYLOAD`), or a {@link WebhookError}; `switch (err.code)` narrows to the class.
 *
 * @example
 * ```ts
 * import type { ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
 * function detail(err: ReceiverFailure): string {
 *   if (err.code === 'SIGNATURE_EXPIRED' || err.code === 'INVALID_SIGNATURE') return err.reason;
 *   if (err.code === 'HANDLER_FAILED') return String(err.cause);
 *   return err.message;
 * }
 * ```
 */
export type ReceiverFailure =
  | SignatureVerificationError
  | (LoyaltyValidationError & { readonly code: 'INVALID_PAYLOAD' })
  | WebhookError;
