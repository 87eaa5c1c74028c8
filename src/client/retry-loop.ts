import { callHook } from '../contract/call-hook.js';
import { errorCodeInfo } from '../contract/error-codes.js';
import { backoffDelay } from '../internal/backoff.js';
import type { AttemptResult, CallTelemetry } from '../telemetry/client-telemetry.js';
import { sleep, throwIfAborted } from './abort.js';
import type { ApiResult } from './api-result.js';
import { attempt, type Call, type ClientContext, type Outcome } from './attempt.js';
import { MAX_CLOCK_OFFSET_MS } from './clock-offset.js';
import { LoyaltyApiError, LoyaltyNetworkError } from './errors.js';
import { parseRetryAfter } from './retry-after.js';
import { type Judgement, judgeAnswer } from './retry-policy.js';

/** What an attempt's span and metrics record: its status, and its code when it failed. */
function attemptResult(outcome: Outcome): AttemptResult {
  if (outcome.kind === 'no-answer') return { code: outcome.code };
  const { status, code } = outcome.answer;
  return status >= 200 && status < 300 ? { status } : { status, code: judgeAnswer(status, code).code };
}

/** Joins parts into sentences: no empty part, and never a doubled period where a part ends with one. */
function sentences(parts: readonly (string | undefined | false)[]): string {
  return parts
    .filter((part): part is string => Boolean(part))
    .map((part) => part.trim().replace(/\.+$/, ''))
    .filter(Boolean)
    .join('. ');
}

function apiError(
  call: Call,
  outcome: Extract<Outcome, { kind: 'answer' }>,
  judgement: Judgement,
  attempts: number,
  retryable: boolean,
  why: string,
): LoyaltyApiError {
  const { status, correlationId, message } = outcome.answer;
  const { code, action } = judgement;
  const text = sentences([
    `${code} (HTTP ${status})${message ? `: ${message}` : ''}`,
    why,
    errorCodeInfo(code)?.remedy,
    correlationId && `correlationId ${correlationId}`,
  ]);
  // The service's own wait, for callers that keep it past this call (the outbox's tenant waits).
  const retryAfterMs = parseRetryAfter(outcome.headers, Date.now());
  const { eventId } = call;
  return new LoyaltyApiError(
    { status, code, action, correlationId, eventId, retryable, attempts, retryAfterMs },
    text,
  );
}

function networkError(
  call: Call,
  outcome: Extract<Outcome, { kind: 'no-answer' }>,
  attempts: number,
  timeoutMs: number,
  why: string,
): LoyaltyNetworkError {
  const detail =
    outcome.code === 'TIMEOUT'
      ? `no complete answer within ${timeoutMs} ms`
      : outcome.code === 'RESPONSE_TOO_LARGE'
        ? `${(outcome.cause as Error).message} (every answer of the contract is small: check baseUrl)`
        : `connection failed (${(outcome.cause as Error | undefined)?.message ?? String(outcome.cause)})`;
  return new LoyaltyNetworkError(
    { code: outcome.code, eventId: call.eventId, attempts, cause: outcome.cause },
    sentences([`No answer from the Loyalty service: ${detail}`, why, 'Send it again later (same eventId)']),
  );
}

/**
 * Runs one call to completion: attempts, the retry decision of each failure (by the catalogue),
 * full-jitter backoff with `Retry-After` as a minimum, the retry budget, the time limits, and the
 * one clock-corrected retry after `401 SIGNATURE_EXPIRED`. Resolves with the 2xx answer; rejects
 * with `LoyaltyApiError`, `LoyaltyNetworkError`, or the signal's reason.
 */
export function runCall(
  ctx: ClientContext,
  call: Call,
  signal: AbortSignal,
  telemetry?: CallTelemetry,
): Promise<ApiResult> {
  if (!telemetry) return runAttempts(ctx, call, signal, undefined);
  return runAttempts(ctx, call, signal, telemetry).then(
    (result) => {
      telemetry.succeeded();
      return result;
    },
    (error: unknown) => {
      telemetry.failed(error);
      throw error;
    },
  );
}

async function runAttempts(
  ctx: ClientContext,
  call: Call,
  signal: AbortSignal,
  telemetry: CallTelemetry | undefined,
): Promise<ApiResult> {
  const { retry, hooks, timeoutMs } = ctx.options;
  const elapsedLimit = performance.now() + retry.maxElapsedMs;
  let attempts = 0;
  let clockCorrected = false;
  for (let retries = 0; ; ) {
    throwIfAborted(signal);
    throwIfAborted(ctx.closed);
    telemetry?.attemptStarted(attempts + 1);
    let outcome: Outcome;
    try {
      outcome = await attempt(ctx, call, ++attempts, signal);
    } catch (error) {
      telemetry?.attemptEnded({ code: 'ABORTED' });
      throw error;
    }
    telemetry?.attemptEnded(attemptResult(outcome));
    let judgement: Judgement | undefined;
    let retryAfterMs = 0;
    const giveUp = (why: string, retryable = true) =>
      outcome.kind === 'answer'
        ? apiError(call, outcome, judgement!, attempts, retryable, why)
        : networkError(call, outcome, attempts, timeoutMs, why);
    if (outcome.kind === 'answer') {
      const { answer } = outcome;
      if (answer.status >= 200 && answer.status < 300) {
        ctx.budget?.onSuccess();
        return { status: answer.status, correlationId: answer.correlationId, attempts, body: answer.body };
      }
      judgement = judgeAnswer(answer.status, answer.code);
      if (judgement.checkClock && !clockCorrected) {
        const previousOffsetMs = ctx.clock.offsetMs;
        const lesson = ctx.clock.learnFrom(outcome.headers.get('date'));
        if (lesson.kind === 'refused') {
          callHook(hooks.onClockSkew, { offsetMs: lesson.offsetMs, previousOffsetMs, applied: false });
          const hours = (lesson.offsetMs / 3_600_000).toFixed(1);
          throw giveUp(
            `Clock not corrected: the service's Date is ${hours} h from this machine's clock, beyond the ${MAX_CLOCK_OFFSET_MS / 3_600_000} h the client believes; check both clocks`,
            false,
          );
        }
        clockCorrected = lesson.kind === 'applied';
        if (clockCorrected) {
          // Concurrent calls refused together learn the same offset: report it once, not per call.
          if (Math.abs(ctx.clock.offsetMs - previousOffsetMs) >= 1_000) {
            callHook(hooks.onClockSkew, { offsetMs: ctx.clock.offsetMs, previousOffsetMs, applied: true });
            telemetry?.clockSkew(ctx.clock.offsetMs, previousOffsetMs);
          }
          // The re-signed attempt needs no backoff and no token: nothing was wrong with the service.
          if (attempts < retry.maxAttempts) continue;
          throw giveUp('Clock offset corrected; not re-sent (retry is off)');
        }
      }
      if (!judgement.retryable || call.noRetryCodes?.has(judgement.code)) {
        ctx.budget?.onSuccess();
        throw giveUp(judgement.retryable ? 'Not retried' : '', judgement.retryable);
      }
      retryAfterMs = parseRetryAfter(outcome.headers, ctx.clock.now()) ?? 0;
    }
    const tried = `${attempts} attempt${attempts === 1 ? '' : 's'}`;
    if (
      outcome.kind === 'no-answer' &&
      (outcome.code === 'RESPONSE_TOO_LARGE' || call.noRetryCodes?.has(outcome.code))
    )
      throw giveUp('Not retried');
    if (attempts >= retry.maxAttempts) {
      throw giveUp(attempts === 1 ? 'Not retried (retry is off)' : `Gave up after ${tried}`);
    }
    retries += 1;
    const delayMs = Math.max(backoffDelay(retries, retry), retryAfterMs);
    if (performance.now() + delayMs > elapsedLimit || ctx.clock.now() + delayMs > call.retryWindowEnd) {
      throw giveUp(
        `Gave up after ${tried}: a retry in ${delayMs} ms would pass retry.maxElapsedMs or the eventId's 24-hour dedup window`,
      );
    }
    if (ctx.budget && !ctx.budget.tryAcquire()) {
      throw giveUp(
        `Not retried after ${tried}: the client's retry budget is exhausted (the service is failing)`,
      );
    }
    const retryCode = judgement?.code ?? (outcome.kind === 'no-answer' ? outcome.code : '');
    const retryStatus = outcome.kind === 'answer' ? outcome.answer.status : undefined;
    const retryCorrelationId = outcome.kind === 'answer' ? outcome.answer.correlationId : undefined;
    telemetry?.retrying(retryCode, retryStatus, delayMs, retryCorrelationId);
    callHook(hooks.onRetry, {
      method: call.method,
      url: ctx.options.origin + call.path,
      attempt: attempts,
      delayMs,
      code: retryCode,
      status: retryStatus,
      correlationId: retryCorrelationId,
      eventId: call.eventId,
    });
    await sleep(delayMs, signal, ctx.closed);
  }
}
