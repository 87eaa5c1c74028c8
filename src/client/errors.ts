import type { ErrorAction, ErrorCode } from '../contract/error-codes.js';
import { codedError } from '../contract/errors.js';

/**
 * The `code` of a {@link LoyaltyApiError}: a code of the contract's catalogue, a code this version
 * does not know yet (a newer service may add some), or `HTTP_<status>` when the answer carried no
 * error envelope (a proxy's 502, say).
 */
export type ApiErrorCode = ErrorCode | `HTTP_${number}` | (string & {});

/** What the client knew when it gave up; shared by the two errors of a request that went out. */
interface AttemptFacts {
  /** The event's id, for `send`, `sendEnvelope` and `syncBatch`; `undefined` for other calls. */
  eventId?: string | undefined;
  /** HTTP attempts made, the last included. */
  attempts: number;
  /** `true` when sending the same request again later can succeed unchanged. */
  retryable: boolean;
  cause?: unknown;
}

/**
 * The service answered with an error (an error envelope, or a bare 4xx/5xx). `code` and `action`
 * come from the contract's `ERROR_CODES`; for a code the catalogue does not know, `action` is
 * derived from the status: `'retry'` for 429 and 5xx, `'stop'` otherwise. `retryable: true` means
 * the client gave up on a transient failure (attempts, time or retry budget spent): send the same
 * event again later, with the same `eventId`.
 *
 * @example
 * ```ts
 * import { LoyaltyApiError, LoyaltyClient } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * try {
 *   await client.send('CouponUsed', { externalCouponId: 'k-1', externalCustomerId: 'c-1', externalInvoiceId: 'i-1' });
 * } catch (err) {
 *   if (err instanceof LoyaltyApiError && err.action === 'fix-setup') console.warn(err.code, err.correlationId);
 * }
 * ```
 */
export class LoyaltyApiError extends codedError('LoyaltyApiError') {
  readonly code: ApiErrorCode;
  readonly status: number;
  readonly action: ErrorAction;
  /** From the `X-Correlation-Id` header, else the error envelope: quote it to Loyalty support. */
  readonly correlationId: string | undefined;
  readonly eventId: string | undefined;
  readonly retryable: boolean;
  readonly attempts: number;
  /**
   * The answer's `Retry-After`, in milliseconds, when it had one: how long the service asked
   * the caller to wait (the outbox keeps it as its tenant's wait, across restarts).
   */
  readonly retryAfterMs: number | undefined;

  constructor(
    facts: AttemptFacts & {
      status: number;
      code: ApiErrorCode;
      action: ErrorAction;
      correlationId?: string | undefined;
      retryAfterMs?: number | undefined;
    },
    message: string,
  ) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.code = facts.code;
    this.status = facts.status;
    this.action = facts.action;
    this.correlationId = facts.correlationId;
    this.eventId = facts.eventId;
    this.retryable = facts.retryable;
    this.attempts = facts.attempts;
    this.retryAfterMs = facts.retryAfterMs;
  }
}

/**
 * Why no usable answer came back: the attempt timed out (`timeoutMs`, the body included), the
 * connection failed, or the answer's body was over `maxResponseBytes` (the client closed the
 * connection; not retried, since an answer that size is no transient failure: check `baseUrl`).
 */
export type NetworkErrorCode = 'NETWORK_ERROR' | 'TIMEOUT' | 'RESPONSE_TOO_LARGE';

/**
 * No usable answer from the service: connection refused or reset, DNS failure, no complete answer
 * within `timeoutMs` (`TIMEOUT`), or an answer over `maxResponseBytes` (`RESPONSE_TOO_LARGE`,
 * which the client does not retry). The service may or may not have processed the request, so it is always
 * `retryable`: send the same event again (same `eventId`), and the service's dedup makes it count
 * once. `cause` holds the transport's own error.
 *
 * @example
 * ```ts
 * import { LoyaltyClient, LoyaltyNetworkError } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * try {
 *   await client.checkConnection();
 * } catch (err) {
 *   if (err instanceof LoyaltyNetworkError) console.warn(err.code, err.attempts, err.cause);
 * }
 * ```
 */
export class LoyaltyNetworkError extends codedError('LoyaltyNetworkError') {
  readonly code: NetworkErrorCode;
  readonly eventId: string | undefined;
  readonly retryable = true as const;
  readonly attempts: number;

  constructor(facts: Omit<AttemptFacts, 'retryable'> & { code: NetworkErrorCode }, message: string) {
    super(message, facts.cause === undefined ? undefined : { cause: facts.cause });
    this.code = facts.code;
    this.eventId = facts.eventId;
    this.attempts = facts.attempts;
  }
}

/**
 * The client was closed: every later call rejects with it, and so do calls still in flight when
 * `close()` ran (whether the service got those is unknown: send them again, same `eventId`, on a
 * new client).
 *
 * @example
 * ```ts
 * import { LoyaltyClient, LoyaltyClientClosedError } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * await client.close();
 * await client.checkConnection().catch((err) => console.log(err instanceof LoyaltyClientClosedError)); // true
 * ```
 */
export class LoyaltyClientClosedError extends codedError('LoyaltyClientClosedError') {
  readonly code = 'CLIENT_CLOSED' as const;
  readonly retryable = true as const;

  constructor() {
    super('This LoyaltyClient is closed: create a new one to send more requests');
  }
}
