import type { EnvelopeOptions } from '../contract/create-envelope.js';
import type { ApiResult } from './api-result.js';

/** Options of `client.send()`: the envelope's fields, and a signal to cancel. */
export interface SendOptions extends EnvelopeOptions {
  /**
   * Cancels waits and attempts. The call then rejects with `signal.reason` (an `AbortError`
   * `DOMException` when `abort()` was called without a reason). Whether the service got an
   * attempt already in flight is unknown: send again with the same `eventId`.
   */
  signal?: AbortSignal;
}

/** Options of `client.sendEnvelope()`. */
export interface SendEnvelopeOptions {
  /** As for `send`: rejects with `signal.reason`. */
  signal?: AbortSignal;
  /**
   * When this `eventId` was first sent, if ever (pass `new Date()` for an envelope never sent).
   * No retry starts more than 23 hours after it, so that no attempt can land once the service's
   * 24-hour dedup window has closed. Default: the envelope's `occurredAt`, the earliest the event
   * could have been sent.
   */
  firstAttemptAt?: Date | string | number;
  /**
   * Error codes to answer at once instead of retrying, for a caller that handles them itself:
   * a queue that pauses the whole tenant on `INTEGRATION_PAUSED` wants one attempt per probe,
   * not six. The service's codes and the client's own (`NETWORK_ERROR`, `TIMEOUT`).
   */
  noRetryCodes?: Iterable<string>;
  /**
   * For tracing: a W3C `traceparent` the `send` span links to (the outbox passes the `create`
   * span of the event, stored with it), and the tenant to put on the span.
   */
  trace?: SendTrace;
}

/** What `sendEnvelope` adds to its span when tracing is on. */
export interface SendTrace {
  /** A W3C `traceparent` (`00-<trace id>-<span id>-<flags>`) the `send` span links to. */
  link?: string | undefined;
  /** Recorded as `loyalty.tenant.id`. */
  tenantId?: string | undefined;
}

/** The service accepted the event (2xx). */
export interface SendResult extends ApiResult {
  /** The envelope's `eventId`: the dedup key, the same on every attempt. */
  eventId: string;
}

/** Options of the calls without a body: `checkConnection`, `lookupCustomer`. */
export interface CallOptions {
  /** Rejects with `signal.reason` when aborted. */
  signal?: AbortSignal;
}
