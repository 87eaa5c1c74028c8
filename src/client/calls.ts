import { v4 as uuidV4 } from 'uuid';
import { LoyaltyValidationError, type ValidationIssue } from '../contract/errors.js';
import { RETRY_WINDOW_MS } from '../contract/limits.js';
import type { InboundEnvelope } from '../contract/schemas/envelope.js';
import type { Call } from './attempt.js';
import type { ResolvedOptions } from './normalize-options.js';

/** `{ phone }` or `{ customerId }`: exactly one key (spec 4.3). */
export type LookupCustomerQuery =
  | { phone: string; customerId?: never }
  | { customerId: string; phone?: never };

/** Options of `client.request()`, the signed call for the planned synchronous endpoints (spec 4.4). */
export interface RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below `baseUrl`, starting with `/`, query allowed, e.g. `/api/partner/v1/redemptions/validate`. */
  path: string;
  /** A value to send as JSON (serialised once), a string, or bytes; sent as `application/json`. */
  body?: unknown;
  /** `Idempotency-Key`, the same on every retry. Default: a new UUID per call. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

const encoder = new TextEncoder();
const HEADER_TOKEN = /^[\x21-\x7e]{1,255}$/;

/** The headers of every request of one client. */
export function baseHeaders(options: ResolvedOptions, userAgent: string): Record<string, string> {
  return { accept: 'application/json', 'user-agent': userAgent, 'x-api-key': options.apiKey };
}

/** Epoch milliseconds of a `Date`, an ISO 8601 string or a number; `TypeError` for anything else. */
export function toEpochMs(value: Date | string | number, what: string): number {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new TypeError(`${what} must be a Date, an ISO 8601 string or epoch milliseconds`);
  return ms;
}

/** The path and headers every event of one client is posted with, built once per client. */
export interface EventRoute {
  path: string;
  /** Shared by every event call; never changed (an attempt copies it to add `X-Signature`). */
  headers: Readonly<Record<string, string>>;
}

export function eventRoute(options: ResolvedOptions, headers: Record<string, string>): EventRoute {
  return {
    path: options.basePath + options.paths.events,
    headers: { ...headers, 'content-type': 'application/json' },
  };
}

/**
 * `POST {events}` of an envelope, serialised here once: every attempt sends these bytes. Retries
 * end 23 hours after `reference`, the (earliest possible) first attempt of its `eventId`.
 */
export function eventCall(
  route: EventRoute,
  envelope: InboundEnvelope,
  reference: number,
  noRetryCodes?: ReadonlySet<string>,
): Call {
  return {
    method: 'POST',
    path: route.path,
    body: encoder.encode(JSON.stringify(envelope)),
    signed: true,
    headers: route.headers,
    eventId: envelope.eventId,
    retryWindowEnd: reference + RETRY_WINDOW_MS,
    noRetryCodes,
  };
}

/** A call with no event: no dedup window to respect, so retries are bounded by the options alone. */
function plainCall(method: string, path: string, signed: boolean, headers: Record<string, string>): Call {
  return {
    method,
    path,
    body: undefined,
    signed,
    headers,
    eventId: undefined,
    retryWindowEnd: Number.POSITIVE_INFINITY,
  };
}

/** Unsigned `GET {connection}`: confirms the key, never starts webhook delivery. */
export function connectionCall(options: ResolvedOptions, headers: Record<string, string>): Call {
  return plainCall('GET', options.basePath + options.paths.connection, false, headers);
}

/** `GET {customerLookup}?phone=|customerId=`, signed over the empty body. Refuses both or neither key. */
export function lookupCall(options: ResolvedOptions, headers: Record<string, string>, query: unknown): Call {
  const q = (typeof query === 'object' && query !== null ? query : {}) as Record<string, unknown>;
  const keys = (['phone', 'customerId'] as const).filter((key) => q[key] !== undefined);
  const summary = 'lookupCustomer needs exactly one of phone and customerId';
  if (keys.length !== 1) {
    throw new LoyaltyValidationError('INVALID_REQUEST', summary, [
      { path: '', message: keys.length ? 'both were given' : 'neither was given' },
    ]);
  }
  const key = keys[0]!;
  const value = q[key];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new LoyaltyValidationError('INVALID_REQUEST', summary, [
      { path: key, message: 'must be a non-empty string' },
    ]);
  }
  const path = `${options.basePath}${options.paths.customerLookup}?${key}=${encodeURIComponent(value)}`;
  return plainCall('GET', path, true, headers);
}

function bodyBytes(body: unknown): Uint8Array | undefined {
  if (body === undefined) return undefined;
  if (body instanceof Uint8Array) return body;
  return encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
}

/** A signed call with an `Idempotency-Key` that every retry repeats (spec 4.4). */
export function genericCall(
  options: ResolvedOptions,
  headers: Record<string, string>,
  request: RequestOptions,
): Call {
  const issues: ValidationIssue[] = [];
  if (!['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].includes(request?.method)) {
    issues.push({ path: 'method', message: 'must be GET, POST, PUT, PATCH or DELETE' });
  }
  // Relative only: an absolute or protocol-relative path would carry the API key to another host.
  if (typeof request?.path !== 'string' || !/^\/(?!\/)[^#\s]*$/.test(request.path)) {
    issues.push({ path: 'path', message: "must start with a single '/' and hold no fragment or space" });
  }
  if (request?.idempotencyKey !== undefined && !HEADER_TOKEN.test(request.idempotencyKey)) {
    issues.push({
      path: 'idempotencyKey',
      message: 'must be 1 to 255 printable ASCII characters without spaces',
    });
  }
  if (issues.length) throw new LoyaltyValidationError('INVALID_REQUEST', 'Invalid request options', issues);
  const body = bodyBytes(request.body);
  const idempotent = {
    ...headers,
    ...(body ? { 'content-type': 'application/json' } : {}),
    'idempotency-key': request.idempotencyKey ?? uuidV4(),
  };
  return { ...plainCall(request.method, options.basePath + request.path, true, idempotent), body };
}
