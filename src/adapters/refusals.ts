import { correlationIdOf, errorResponse, type ReceiverResponse } from '../webhooks/answers.js';
import { type HeadersLike, readHeader } from '../webhooks/read-headers.js';
import type { WebhookErrorCode } from '../webhooks/receiver-error-codes.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import type { ExchangeOptions } from './adapter-options.js';
import { utf8Headers } from './header-bytes.js';
import { AdapterError, reportMisconfiguration } from './misconfiguration.js';

/** What reading a delivery's body found, whichever adapter read it. */
export type BodyRead =
  | { kind: 'read'; body: Uint8Array }
  | { kind: 'too-large' }
  /** A parser read the stream first and kept no raw bytes: there is nothing left to verify. */
  | { kind: 'consumed' }
  /** The sender went away before the body was complete. */
  | { kind: 'aborted' }
  /** The whole body did not arrive within the deadline; the rest is not read. */
  | { kind: 'timed-out' };

/**
 * The answer to a delivery whose body was read as `read`: the receiver's, or a refusal. `close`
 * asks to close a connection whose body is left unread.
 */
export function answerRead(
  receiver: Receiver,
  read: Exclude<BodyRead, { kind: 'aborted' }>,
  headers: HeadersLike,
  options: ExchangeOptions,
  close: boolean,
): Promise<ReceiverResponse> | ReceiverResponse {
  switch (read.kind) {
    case 'consumed':
      return rawBodyUnavailable(options, headers);
    case 'too-large':
    case 'timed-out':
      return bodyRefused(read.kind, headers, options, close);
    case 'read':
      return receiver.handle({ rawBody: read.body, headers: utf8Headers(headers) });
  }
}

const CLOSE = { connection: 'close' };

function refusal(
  code: WebhookErrorCode,
  message: string,
  headers: HeadersLike,
  extra: Record<string, string>,
): ReceiverResponse {
  const refused = errorResponse(code, message, correlationIdOf(headers));
  return { ...refused, headers: { ...refused.headers, ...extra } };
}

/** 405 for anything but POST: deliveries are POST requests. */
export function methodNotAllowed(headers: HeadersLike): ReceiverResponse {
  return refusal('METHOD_NOT_ALLOWED', 'Webhook deliveries are POST requests', headers, { allow: 'POST' });
}

/**
 * 413 once the body crossed `maxBodyBytes`, 408 when it did not arrive whole within
 * `bodyTimeoutMs`; with `close`, the connection closes since the rest is not read.
 */
export function bodyRefused(
  kind: 'too-large' | 'timed-out',
  headers: HeadersLike,
  limits: Pick<ExchangeOptions, 'maxBodyBytes' | 'bodyTimeoutMs'>,
  close: boolean,
): ReceiverResponse {
  const extra = close ? CLOSE : {};
  return kind === 'too-large'
    ? refusal('PAYLOAD_TOO_LARGE', `The body is larger than ${limits.maxBodyBytes} bytes`, headers, extra)
    : refusal('REQUEST_TIMEOUT', `The body did not arrive within ${limits.bodyTimeoutMs} ms`, headers, extra);
}

/**
 * 500 `RAW_BODY_UNAVAILABLE` for a body a parser consumed first: reported through `onError` and
 * once in the log, since nothing else would tell anyone while the service retries for hours.
 */
function rawBodyUnavailable(options: ExchangeOptions, headers: HeadersLike): ReceiverResponse {
  const correlationId = correlationIdOf(headers);
  const error = new AdapterError('RAW_BODY_UNAVAILABLE', options.framework, options.fix);
  const answer = errorResponse('RAW_BODY_UNAVAILABLE', error.message, correlationId);
  reportMisconfiguration(options, error, {
    tenantId: readHeader(headers, 'x-tenantid') ?? '',
    correlationId,
    receivedAt: new Date(),
    status: answer.status,
  });
  return answer;
}
