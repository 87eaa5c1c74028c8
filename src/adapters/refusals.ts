import { correlationIdOf, errorResponse, type ReceiverResponse } from '../webhooks/answers.js';
import { type HeadersLike, readHeader } from '../webhooks/read-headers.js';
import type { Receiver } from '../webhooks/receiver-types.js';
import type { NormalizedAdapterOptions } from './adapter-options.js';
import { AdapterError, reportMisconfiguration } from './misconfiguration.js';

/** Whose setup a misconfiguration report names, and the fix in that framework's own terms. */
export interface FrameworkHint {
  framework: string;
  fix: string;
}

/** How one adapter differs from the others. */
export type ExchangeOptions = NormalizedAdapterOptions & FrameworkHint;

/** 405 for anything but POST: deliveries are POST requests. */
export function methodNotAllowed(headers: HeadersLike): ReceiverResponse {
  const refused = errorResponse(
    'METHOD_NOT_ALLOWED',
    'Webhook deliveries are POST requests',
    correlationIdOf(headers),
  );
  return { ...refused, headers: { ...refused.headers, allow: 'POST' } };
}

/** 413 once the body crossed the limit; the connection closes since the rest is not read. */
export function payloadTooLarge(
  headers: HeadersLike,
  maxBodyBytes: number,
  close: boolean,
): ReceiverResponse {
  const message = `The body is larger than ${maxBodyBytes} bytes`;
  const refused = errorResponse('PAYLOAD_TOO_LARGE', message, correlationIdOf(headers));
  return close ? { ...refused, headers: { ...refused.headers, connection: 'close' } } : refused;
}

/** 408 when the body did not arrive whole within `bodyTimeoutMs`; the connection closes too. */
export function requestTimeout(
  headers: HeadersLike,
  bodyTimeoutMs: number,
  close: boolean,
): ReceiverResponse {
  const message = `The body did not arrive within ${bodyTimeoutMs} ms`;
  const refused = errorResponse('REQUEST_TIMEOUT', message, correlationIdOf(headers));
  return close ? { ...refused, headers: { ...refused.headers, connection: 'close' } } : refused;
}

/**
 * 500 `RAW_BODY_UNAVAILABLE` for a body a parser consumed first: reported through `onError` and
 * once in the log, since nothing else would tell anyone while the service retries for hours.
 */
export function rawBodyUnavailable(
  receiver: Receiver,
  options: ExchangeOptions,
  headers: HeadersLike,
): ReceiverResponse {
  const correlationId = correlationIdOf(headers);
  const error = new AdapterError('RAW_BODY_UNAVAILABLE', options.framework, options.fix);
  const answer = errorResponse('RAW_BODY_UNAVAILABLE', error.message, correlationId);
  reportMisconfiguration(receiver, options, error, {
    tenantId: readHeader(headers, 'x-tenantid') ?? '',
    correlationId,
    receivedAt: new Date(),
    status: answer.status,
  });
  return answer;
}
