/** What every per-attempt hook sees of the call. */
interface AttemptEvent {
  method: string;
  /** Full URL, query included (a lookup's phone number is in it: mind your logs). */
  url: string;
  /** 1 for the first attempt of a call; for `onRetry`, the attempt that failed. */
  attempt: number;
  eventId: string | undefined;
}

/** What `onRequest` sees just before an attempt goes out. */
export interface ClientRequestEvent extends AttemptEvent {
  /** The request headers, with `x-api-key` and `x-signature` replaced by `'[redacted]'`. */
  headers: Readonly<Record<string, string>>;
}

/** What `onResponse` sees when an answer arrived (any status). */
export interface ClientResponseEvent extends AttemptEvent {
  status: number;
  /** The error envelope's `code`, when the answer carried one. */
  code: string | undefined;
  correlationId: string | undefined;
  /** Time from sending to the last byte of the answer, for metrics. */
  durationMs: number;
}

/** What `onRetry` sees when a failed attempt will be retried after `delayMs`. */
export interface RetryEvent extends AttemptEvent {
  delayMs: number;
  /** The error envelope's `code`, `HTTP_<status>`, `TIMEOUT` or `NETWORK_ERROR`. */
  code: string;
  /** HTTP status of the failed attempt, `undefined` when no answer came. */
  status: number | undefined;
  correlationId: string | undefined;
}

/** What `onClockSkew` sees when a `401 SIGNATURE_EXPIRED` taught the client the service's time. */
export interface ClockSkewEvent {
  /**
   * Service clock minus this machine's clock, in milliseconds, from the answer's `Date`; added
   * to every later signature when `applied`.
   */
  offsetMs: number;
  /** The offset in use before (and still in use when not `applied`). */
  previousOffsetMs: number;
  /**
   * `false` when the offset was refused: more than 24 hours either way is not believed (a
   * broken or hostile clock), and the call fails with the `SIGNATURE_EXPIRED` answer.
   */
  applied: boolean;
}

/**
 * Observers of the client's traffic, for logs and metrics. A hook never receives the API key,
 * the signing secret or a signature. A hook that throws is ignored, so that logging can never
 * lose an event; a hook that returns a promise is not awaited.
 *
 * @example
 * ```ts
 * import { type ClientHooks, LoyaltyClient } from 'loyalty-partner-sdk';
 * const hooks: ClientHooks = {
 *   onRetry: ({ attempt, delayMs, code, correlationId }) => console.warn('retry', attempt, delayMs, code, correlationId),
 *   onClockSkew: ({ offsetMs }) => console.warn(`local clock is off by ${offsetMs} ms: check NTP`),
 * };
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret', hooks });
 * ```
 */
export interface ClientHooks {
  onRequest?: (event: ClientRequestEvent) => void;
  onResponse?: (event: ClientResponseEvent) => void;
  onRetry?: (event: RetryEvent) => void;
  onClockSkew?: (event: ClockSkewEvent) => void;
}

const SECRET_HEADERS = new Set(['x-api-key', 'x-signature']);

/** A copy of `headers` that is safe to hand to a hook or a log line. */
export function redactHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const copy: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    copy[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value;
  }
  return copy;
}
