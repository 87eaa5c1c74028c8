import { ERROR_CODES, type ErrorCode } from '../contract/index.js';
import type { EmulatorReply, EmulatorResponse } from './exchange.js';

/** What every answer carries: the request's correlation id and the service's time. */
export interface ReplyContext {
  correlationId: string;
  /** The service's clock (skew included), epoch milliseconds: what the `Date` header says. */
  now: number;
}

/** A partner endpoint's answer, with what the request log keeps of it. */
export interface EndpointOutcome {
  response: EmulatorResponse;
  tenantId?: string;
  eventId?: string;
  eventType?: string;
  replayed?: boolean;
}

/** A business or protocol refusal, answered with the contract's error envelope. */
export interface Rejection {
  ok: false;
  code: ErrorCode;
  message: string;
}

/** What an event handler returns: a success (with an optional `result` for the body) or a refusal. */
export type HandlerResult = { ok: true; result?: Record<string, unknown> } | Rejection;

export function reject(code: ErrorCode, message: string): Rejection {
  return { ok: false, code, message };
}

/** A JSON answer (`body` already serialised) with the headers every answer of the service carries. */
export function jsonResponse(
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
export const errorResponse = (code: ErrorCode, message: string, ctx: ReplyContext): EmulatorResponse =>
  otherErrorResponse(ERROR_CODES[code].status, code, message, ctx);

/** The error envelope, same shape, for answers outside the catalogue: 404, 405, a fault's 429. */
export function otherErrorResponse(
  status: number,
  code: string,
  message: string,
  ctx: ReplyContext,
  headers: Record<string, string> = {},
): EmulatorResponse {
  return jsonResponse(
    status,
    JSON.stringify({ code, message, correlationId: ctx.correlationId }),
    ctx,
    headers,
  );
}

export const respond = (response: EmulatorResponse): EmulatorReply => ({ kind: 'response', response });
