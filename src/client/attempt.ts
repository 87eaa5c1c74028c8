import { callHook } from '../contract/call-hook.js';
import type { ClientInstruments } from '../telemetry/client-telemetry.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { throwIfAborted } from './abort.js';
import { TransportResponseTooLargeError } from './body-limit.js';
import type { ClockOffset } from './clock-offset.js';
import type { NetworkErrorCode } from './errors.js';
import { redactHeaders } from './hooks.js';
import type { ResolvedOptions } from './normalize-options.js';
import { type Answer, readAnswer } from './response.js';
import type { RetryBudget } from './retry-budget.js';
import { type Transport, type TransportResponse, TransportTimeoutError } from './transport.js';

/**
 * Signs `body` at `timestamp` (unix seconds) under every secret: Node crypto synchronously in the
 * Node build, Web Crypto asynchronously in the Web build.
 */
export type Signer = (
  body: Uint8Array,
  secrets: readonly string[],
  timestamp: number,
) => string | Promise<string>;

/** Everything one client shares between its calls. */
export interface ClientContext {
  options: ResolvedOptions;
  transport: Transport;
  sign: Signer;
  clock: ClockOffset;
  budget: RetryBudget | undefined;
  telemetry: Telemetry<ClientInstruments>;
  /** The client's own signal, which `close()` aborts: every call and wait listens to it too. */
  closed: AbortSignal;
  /** Removes the API key, the signing secrets and signatures from text taken from the wire. */
  redact: <T extends string | undefined>(text: T) => T;
}

/** One logical call: the same method, path and body bytes for every attempt. */
export interface Call {
  method: string;
  /** Path and query below the origin (the base path included). */
  path: string;
  body: Uint8Array | undefined;
  /** Add a fresh `X-Signature` to every attempt. */
  signed: boolean;
  /** Headers of every attempt, lowercase names (the signature is added to a copy per attempt). */
  headers: Readonly<Record<string, string>>;
  eventId: string | undefined;
  /** Corrected epoch ms after which no retry may start (the dedup window of the first attempt). */
  retryWindowEnd: number;
  /** Codes answered at once instead of retried (`syncBatch` falls back on a Planned batch type). */
  noRetryCodes?: ReadonlySet<string> | undefined;
}

/** What one attempt produced: an answer, or the reason none came. */
export type Outcome =
  | {
      kind: 'answer';
      answer: Answer;
      /** The answer's headers; the retry loop reads `Date` and `Retry-After` only from failures. */
      headers: TransportResponse['headers'];
    }
  | { kind: 'no-answer'; code: NetworkErrorCode; cause: unknown };

const EMPTY = new Uint8Array(0);

/** The answer with its wire texts redacted: they reach errors, hooks and logs. */
function redactAnswer(ctx: ClientContext, answer: Answer): Answer {
  const { redact } = ctx;
  answer.correlationId = redact(answer.correlationId);
  if (answer.code !== undefined) {
    answer.code = redact(answer.code);
    answer.message = redact(answer.message);
  }
  return answer;
}

/**
 * Makes one attempt: signs the call's bytes with a fresh timestamp, sends them under the attempt's
 * timeout and reads the answer. Rejects only with the call signal's reason; every transport
 * failure becomes an `Outcome`. The URL and start time are built only for hooks.
 */
export async function attempt(
  ctx: ClientContext,
  call: Call,
  n: number,
  signal: AbortSignal,
): Promise<Outcome> {
  const { options } = ctx;
  let headers = call.headers;
  if (call.signed) {
    const signature = ctx.sign(call.body ?? EMPTY, options.secrets, ctx.clock.unixSeconds());
    // Awaited only when it is a promise: the Node build signs synchronously.
    headers = { ...headers, 'x-signature': typeof signature === 'string' ? signature : await signature };
  }
  const { onRequest, onResponse } = options.hooks;
  const about = () => ({
    method: call.method,
    url: options.origin + call.path,
    attempt: n,
    eventId: call.eventId,
  });
  if (onRequest) callHook(onRequest, { ...about(), headers: redactHeaders(headers) });
  const started = onResponse ? performance.now() : 0;
  let outcome: Outcome;
  try {
    const response = await ctx.transport.request({
      method: call.method,
      origin: options.origin,
      path: call.path,
      headers,
      body: call.body,
      signal,
    });
    outcome = { kind: 'answer', answer: redactAnswer(ctx, readAnswer(response)), headers: response.headers };
  } catch (cause) {
    throwIfAborted(signal);
    throwIfAborted(ctx.closed);
    const code =
      cause instanceof TransportTimeoutError
        ? 'TIMEOUT'
        : cause instanceof TransportResponseTooLargeError
          ? 'RESPONSE_TOO_LARGE'
          : 'NETWORK_ERROR';
    return { kind: 'no-answer', code, cause };
  }
  if (onResponse) {
    const durationMs = performance.now() - started;
    const { status, code, correlationId } = outcome.answer;
    callHook(onResponse, { ...about(), status, code, correlationId, durationMs });
  }
  return outcome;
}
