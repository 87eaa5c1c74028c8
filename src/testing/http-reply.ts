import { ERROR_CODES, type ErrorCode } from '../contract/index.js';
import type { EmulatorResponse } from './exchange.js';

/**
 * What the emulator's core answers a request with. The transports (node server, in-process
 * `fetch`, msw) turn a `response` into bytes, a `reset` into a dropped connection and a `hang`
 * into silence until the caller gives up.
 */
export type EmulatorReply =
  | { kind: 'response'; response: EmulatorResponse }
  | { kind: 'reset' }
  | { kind: 'hang' };

/** What every answer carries: the request's correlation id and the service's time. */
export interface ReplyContext {
  correlationId: string;
  /** The service's clock (skew included), epoch milliseconds: what the `Date` header says. */
  now: number;
}

/** A business or protocol refusal, answered with the contract's error envelope. */
export interface Rejection {
  ok: false;
  code: ErrorCode;
  message: string;
}

/** What an event handler returns: a success (with an optional `result` for the body) or a refusal. */
export type HandlerResult = { ok: true; result?: Record<string, unknown> } | Rejection;

/** A refusal with a code of the contract's catalogue. */
export function reject(code: ErrorCode, message: string): Rejection {
  return { ok: false, code, message };
}

/** A JSON response with the headers every answer of the service carries. */
export function jsonResponse(
  status: number,
  body: unknown,
  ctx: ReplyContext,
  headers: Record<string, string> = {},
): EmulatorResponse {
  return rawJsonResponse(status, JSON.stringify(body), ctx, headers);
}

/** The same, for a body already serialised (a replay from the response cache). */
export function rawJsonResponse(
  status: number,
  body: string,
  ctx: ReplyContext,
  headers: Record<string, string> = {},
): EmulatorResponse {
  return {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-correlation-id': ctx.correlationId,
      date: new Date(ctx.now).toUTCString(),
      ...headers,
    },
    body,
  };
}

/** The error envelope of spec 2.4, with the status the catalogue gives the code. */
export function errorResponse(code: ErrorCode, message: string, ctx: ReplyContext): EmulatorResponse {
  return jsonResponse(ERROR_CODES[code].status, { code, message, correlationId: ctx.correlationId }, ctx);
}

/**
 * An error envelope for the few answers outside the contract's catalogue (404 for an unknown
 * path, 405, the 429 of fault injection), in the same shape so a client parses it the same way.
 */
export function otherErrorResponse(
  status: number,
  code: string,
  message: string,
  ctx: ReplyContext,
  headers: Record<string, string> = {},
): EmulatorResponse {
  return jsonResponse(status, { code, message, correlationId: ctx.correlationId }, ctx, headers);
}

/** Wraps a response as a reply. */
export const respond = (response: EmulatorResponse): EmulatorReply => ({ kind: 'response', response });
