import { backoffDelay } from '../internal/backoff.js';
import type { Verdict } from './classify.js';
import type { EventHook } from './outbox-hooks.js';
import type { NormalizedOutboxOptions } from './outbox-options.js';
import type { ClaimOutcome, EventFailure, StoredEvent } from './store.js';
import type { TenantState } from './tenant-state.js';

/** What an attempt's answer does to its tenant. */
export type TenantStep =
  | { readonly kind: 'none' }
  /** Any answer but a pause ends a pause; a `Retry-After` on it makes the tenant wait `waitMs`. */
  | { readonly kind: 'resume'; readonly waitMs?: number | undefined; readonly code?: string }
  /** `waitMs`: the answer's `Retry-After`, when it had one. */
  | { readonly kind: 'pause' | 'stop'; readonly code: string; readonly waitMs?: number | undefined };

/** What one attempt decided: `hook` is called only once `outcome` is recorded. */
export interface Decision {
  readonly outcome: ClaimOutcome;
  readonly hook?: EventHook | undefined;
  readonly tenant: TenantStep;
  /** Transient failures of the event in a row after this answer; `undefined`: unchanged. */
  readonly failuresInRow?: number | undefined;
}

/** What the decision depends on besides the answer. */
export interface DecisionContext {
  readonly tenantState: TenantState;
  /** Transient failures of the event in a row before this answer (this process's memory). */
  readonly failuresInRow: number;
  readonly options: Pick<NormalizedOutboxOptions, 'retryDelayMs' | 'maxRetryDelayMs' | 'probeIntervalMs'>;
}

const NONE: TenantStep = { kind: 'none' };
const RESUME: TenantStep = { kind: 'resume' };

/** Turns a verdict on one attempt (or an expiry found before it) into what to record and report. */
export function decide(
  event: StoredEvent,
  verdict: Verdict | { readonly kind: 'expire' },
  attempts: number,
  context: DecisionContext,
): Decision {
  const { eventId } = event;
  const total = event.attempts + attempts;
  // Answered for the last time: parked, dead or expired, and no longer holding later events back.
  const settle = (state: 'parked' | 'dead' | 'expired', answered: boolean, failure: EventFailure | null) => {
    // A 400 answer proves the event was not credited (a credited eventId gets its cached answer
    // replayed), so a later redelivery starts a fresh dedup window.
    const patch = {
      state,
      attempts: total,
      lastError: failure,
      firstAttemptAt: answered ? null : event.firstAttemptAt,
    };
    return { outcome: { kind: 'settle', eventId, patch } as const, event: { ...event, ...patch } };
  };
  // Kept pending: due again after `retryAfterMs` (a paused or stopped tenant is not claimed).
  const keep = (failure: EventFailure, retryAfterMs: number) => {
    const patch = { attempts: total, lastError: failure };
    return {
      outcome: { kind: 'retry', eventId, patch, retryAfterMs } as const,
      event: { ...event, ...patch },
    };
  };

  switch (verdict.kind) {
    case 'aborted':
      // Sent or not, the answer is unknown: it stays pending, with its eventId, for the next try.
      return { outcome: { kind: 'release', eventId }, tenant: NONE };
    case 'expire': {
      const settled = settle('expired', false, event.lastError);
      const hook = { name: 'onExpired', info: { event: settled.event } } as const;
      return { outcome: settled.outcome, hook, tenant: NONE, failuresInRow: 0 };
    }
    case 'delivered': {
      const { status, correlationId, alreadyCredited } = verdict;
      const info = {
        event: { ...event, attempts: total },
        status,
        correlationId,
        attempts: total,
        alreadyCredited,
      };
      const hook = { name: 'onDelivered', info } as const;
      return { outcome: { kind: 'delivered', eventId }, hook, tenant: RESUME, failuresInRow: 0 };
    }
    case 'park':
    case 'dead': {
      const { failure } = verdict;
      const settled = settle(verdict.kind === 'park' ? 'parked' : 'dead', verdict.answered, failure);
      const info = { event: settled.event, code: failure.code, message: failure.message };
      const name = verdict.kind === 'park' ? 'onParked' : 'onDead';
      return { outcome: settled.outcome, hook: { name, info }, tenant: RESUME, failuresInRow: 0 };
    }
    case 'retry': {
      const { options } = context;
      const failuresInRow = context.failuresInRow + 1;
      // At least `retryDelayMs`, plus the client's full-jitter backoff on top: never a busy loop.
      const base = options.retryDelayMs;
      const jitter = { baseDelayMs: base, maxDelayMs: Math.max(0, options.maxRetryDelayMs - base) };
      // A `Retry-After` is a minimum; the whole tenant waits it (and keeps it across a restart).
      let delayMs = Math.max(base + backoffDelay(failuresInRow, jitter), verdict.waitMs ?? 0);
      let tenant: TenantStep =
        verdict.waitMs === undefined
          ? RESUME
          : { kind: 'resume', waitMs: verdict.waitMs, code: verdict.failure.code };
      // No answer says nothing about a pause: keep probing slowly. Any answer means it is over.
      if (context.tenantState === 'paused' && !verdict.answered) {
        delayMs = options.probeIntervalMs;
        tenant = NONE;
      }
      const kept = keep(verdict.failure, delayMs);
      const { code, message } = verdict.failure;
      const hook = { name: 'onRetry', info: { event: kept.event, code, message, delayMs } } as const;
      return { outcome: kept.outcome, hook, tenant, failuresInRow };
    }
    case 'pause-tenant':
    case 'stop-tenant': {
      // The tenant's other events in flight get their own answers; none is sent again until a
      // probe says the pause is over, or the operator resumes the tenant.
      const kind = verdict.kind === 'pause-tenant' ? 'pause' : 'stop';
      const tenant = { kind, code: verdict.failure.code, waitMs: verdict.waitMs } as const;
      return { outcome: keep(verdict.failure, 0).outcome, tenant };
    }
  }
}
