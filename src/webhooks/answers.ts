import { redactor } from '../contract/redact.js';
import type { ErrorEnvelope } from '../contract/schemas/envelope.js';
import { type HeadersLike, readHeader } from './read-headers.js';
import { statusOf, type WebhookErrorCode } from './receiver-error-codes.js';

/**
 * What the receiver answers, ready for any framework: every adapter only copies these three
 * fields into its own response object. `headers` always holds `content-type: application/json`
 * and `x-correlation-id`.
 *
 * @example
 * ```ts
 * import type { ReceiverResponse } from 'loyalty-partner-sdk/webhooks';
 * const toResponse = (answer: ReceiverResponse) => new Response(answer.body, answer);
 * ```
 */
export interface ReceiverResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON text: the contract's error envelope `{ code, message, correlationId }` for errors. */
  body: string;
}

/**
 * How a 200 came about (its body is `{ outcome, eventId, correlationId }`): handled now, handled
 * or stored before, nobody handles it, or stored for its handler to run later.
 */
export type DeliveryOutcome = 'handled' | 'duplicate' | 'unhandled' | 'stored';

// Echoed into a response header and log lines, so only a short run of visible ASCII is trusted.
const ECHOABLE = /^[\x21-\x7e]{1,128}$/;
// The header is wire text like any other: one that carries a signature (a proxy copying
// X-Signature into it) must not reach a span, a log line or `onError` as it is.
const redactWireText = redactor([]);

/**
 * The delivery's `X-Correlation-Id` when it is a sane token (with any signature in it redacted),
 * otherwise a fresh random UUID, so that every answer and every log line of one delivery carries
 * the same id.
 *
 * @example
 * ```ts
 * import { correlationIdOf } from 'loyalty-partner-sdk/webhooks';
 * correlationIdOf({ 'x-correlation-id': 'c0ffee00-0000-4000-8000-000000000000' }); // echoed
 * correlationIdOf({}); // a new UUID
 * ```
 */
export function correlationIdOf(headers: HeadersLike | null | undefined): string {
  const sent = readHeader(headers, 'x-correlation-id');
  return sent !== undefined && ECHOABLE.test(sent) ? redactWireText(sent) : globalThis.crypto.randomUUID();
}

function answer(status: number, correlationId: string, body: string): ReceiverResponse {
  return {
    status,
    headers: { 'content-type': 'application/json', 'x-correlation-id': correlationId },
    body,
  };
}

/**
 * An error answer: the status of `code`, the contract's error envelope as the body; for custom
 * adapters that refuse a request before `receiver.handle`. `message` is sent as it is: never put
 * a secret or a signature in it.
 *
 * @param correlationId - the delivery's id; pass `correlationIdOf(request headers)`
 *
 * @example
 * ```ts
 * import { correlationIdOf, errorResponse } from 'loyalty-partner-sdk/webhooks';
 * const headers = { 'x-correlation-id': 'abc-123' };
 * const refused = errorResponse('METHOD_NOT_ALLOWED', 'Deliveries are POST requests', correlationIdOf(headers));
 * refused.status; // 405
 * ```
 */
export function errorResponse(
  code: WebhookErrorCode,
  message: string,
  correlationId: string,
): ReceiverResponse {
  const envelope: ErrorEnvelope = { code, message, correlationId };
  return answer(statusOf(code), correlationId, JSON.stringify(envelope));
}

// Characters JSON writes as they are: printable ASCII but `"` and `\`.
const VERBATIM = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const quoted = (text: string): string => (VERBATIM.test(text) ? `"${text}"` : JSON.stringify(text));

/** A 200 answer saying what happened to the event. */
export function okResponse(
  outcome: DeliveryOutcome,
  eventId: string,
  correlationId: string,
): ReceiverResponse {
  // JSON.stringify({ outcome, eventId, correlationId }) written out: it costs more than the rest of
  // the answer (the receiver's benchmark goal, bench/README.md).
  const body = `{"outcome":"${outcome}","eventId":${quoted(eventId)},"correlationId":${quoted(correlationId)}}`;
  return answer(200, correlationId, body);
}
