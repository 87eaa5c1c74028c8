import { callHook } from '../contract/call-hook.js';
import { DeadlinePassed, isPromiseLike, withDeadline } from '../internal/deadline.js';
import { startHeartbeat } from '../internal/lease-heartbeat.js';
import { errorResponse, okResponse, type ReceiverResponse } from './answers.js';
import { type EventRun, watchedRun } from './event-run.js';
import type { InboxClaim, InboxKey } from './inbox.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { type FailureScope, refuse } from './report-failure.js';
import { WebhookError } from './webhook-error.js';

/** One event on its way through the inbox: what every step below needs. */
interface Dispatch {
  options: NormalizedReceiverOptions;
  key: InboxKey;
  job: EventRun;
  /** What is known about the delivery before the event was parsed. */
  scope: FailureScope;
}

const CLAIMS: ReadonlySet<unknown> = new Set<InboxClaim>(['new', 'done', 'in-progress']);

/**
 * Runs the callback at most once per `eventId`: in one transaction of a transactional inbox with
 * the claim and the "done" mark; otherwise claim, run, then mark done, or release the claim when
 * it throws so that the redelivery runs it again. A copy arriving meanwhile gets 503.
 */
export function dispatchEvent(
  options: NormalizedReceiverOptions,
  key: InboxKey,
  job: EventRun,
  scope: FailureScope,
): Promise<ReceiverResponse> {
  const d: Dispatch = { options, key, job, scope };
  return options.inbox.transaction ? inTransaction(d) : claimRunComplete(d);
}

async function claimRunComplete(d: Dispatch): Promise<ReceiverResponse> {
  let claim: InboxClaim;
  try {
    const found = d.options.inbox.begin(d.key);
    claim = checkedClaim(isPromiseLike(found) ? await found : found);
  } catch (cause) {
    return notClaimed(d, cause);
  }
  if (claim !== 'new') return alreadyClaimed(d, claim);
  const stopBeating = keepClaim(d);
  let running: unknown;
  try {
    running = d.job.run(undefined);
    if (isPromiseLike(running)) Promise.resolve(running).then(stopBeating, stopBeating);
    else stopBeating();
    const bounded = withDeadline(running, d.options.handlerTimeoutMs);
    if (isPromiseLike(bounded)) await bounded;
  } catch (cause) {
    if (running === undefined) stopBeating();
    if (cause instanceof DeadlinePassed)
      return timedOut(d, running, cause, () =>
        Promise.resolve()
          .then(() => d.options.inbox.complete(d.key))
          .catch((late: unknown) => unrecorded(d, late, 503)),
      );
    return runFailed(d, cause);
  }
  try {
    const recorded = d.options.inbox.complete(d.key);
    if (isPromiseLike(recorded)) await recorded;
  } catch (cause) {
    unrecorded(d, cause, 200);
  }
  return handled(d);
}

/**
 * Renews the claim while the callback runs, past `handlerTimeoutMs` too (a callback that timed
 * out may still be running), on stores with a lease and `extend`.
 */
function keepClaim(d: Dispatch): () => void {
  const { inbox } = d.options;
  if (!inbox.extend || typeof inbox.leaseMs !== 'number') return () => {};
  return startHeartbeat(inbox.leaseMs, () => inbox.extend?.(d.key));
}

/** The event was handled but not recorded: reported, never answered 5xx, which would only make the service run it again. */
function unrecorded(d: Dispatch, cause: unknown, status: number): void {
  const text = 'The event was handled but the inbox store could not record it';
  failure(d, 'INBOX_UNAVAILABLE', text, cause).tell(status);
}

/**
 * The callback did not settle within `handlerTimeoutMs`: answer 503 so the service redelivers.
 * It may still run, so its claim is NOT released (a redelivery would run it concurrently): a late
 * success records the event as done, else the inbox's lease ends and a redelivery takes over.
 */
function timedOut(
  d: Dispatch,
  running: unknown,
  cause: DeadlinePassed,
  lateSuccess: () => unknown,
): ReceiverResponse {
  const lateFailure = (lateCause: unknown) => {
    const text = `The ${d.job.runner} failed after it had timed out; its claim ends with the inbox's lease`;
    failure(d, 'HANDLER_FAILED', text, lateCause).tell(503);
  };
  Promise.resolve(running).then(lateSuccess, lateFailure);
  const text = `The ${d.job.runner} did not settle within handlerTimeoutMs (${cause.ms} ms)`;
  const message = `The ${d.job.runner} took too long; the event will be handled when it is redelivered`;
  return failure(d, 'HANDLER_TIMEOUT', text, cause).refuse(message);
}

/**
 * The store claims, runs the callback and records the event in one transaction. A rejection is
 * the callback's (500, the store rolled back and left no claim) or the store's (503, retried).
 */
async function inTransaction(d: Dispatch): Promise<ReceiverResponse> {
  const { seen, work } = watchedRun(d.job);
  let claim: InboxClaim;
  // dispatchEvent takes this path only when the inbox has transaction.
  const transaction = d.options.inbox.transaction!(d.key, work);
  try {
    claim = checkedClaim(await withDeadline(transaction, d.options.handlerTimeoutMs));
  } catch (cause) {
    // The transaction goes on and commits (the event is done) or rolls back (no claim is left):
    // only a late failure of the callback itself is worth reporting.
    if (cause instanceof DeadlinePassed) {
      const callback = transaction.catch((late: unknown) => {
        if (seen.failed) throw late;
      });
      return timedOut(d, callback, cause, () => {});
    }
    if (seen.failed) return handlerFailed(d, seen.failed.cause);
    // The handler ended the store's transaction itself (ROLLBACK or COMMIT): its own failure.
    if (seen.ran && (cause as { code?: unknown } | null)?.code === 'HANDLER_ENDED_TRANSACTION')
      return handlerFailed(d, cause);
    return notClaimed(d, cause);
  }
  if (claim !== 'new') return alreadyClaimed(d, claim);
  return handled(d);
}

function checkedClaim(claim: unknown): InboxClaim {
  if (!CLAIMS.has(claim)) throw new TypeError(`The inbox store answered ${String(claim)}, not a claim`);
  return claim as InboxClaim;
}

/** A failure about this event, told to `onError` with the answer's status, or refused with `message`. */
function failure(d: Dispatch, code: WebhookError['code'], text: string, cause: unknown) {
  const { eventId, eventType } = d.key;
  const error = new WebhookError(code, text, { cause, eventId, eventType });
  const scope = { ...d.scope, eventId, eventType };
  return {
    tell: (status: number) => callHook(d.options.onError, error, { ...scope, status }),
    refuse: (message: string) => refuse(d.options, error, message, scope),
  };
}

function notClaimed(d: Dispatch, cause: unknown): ReceiverResponse {
  const text = 'The inbox store could not claim the event';
  const message = 'The receiver cannot record events now; retry later';
  return failure(d, 'INBOX_UNAVAILABLE', text, cause).refuse(message);
}

function alreadyClaimed(d: Dispatch, claim: Exclude<InboxClaim, 'new'>): ReceiverResponse {
  const { eventId } = d.key;
  if (claim === 'done') return okResponse('duplicate', eventId, d.scope.correlationId);
  const message = `Event ${eventId} is still being handled by an earlier delivery; retry later`;
  return errorResponse('EVENT_IN_PROGRESS', message, d.scope.correlationId);
}

/** The callback threw: release the claim so that the redelivery runs it again, and answer 500. */
async function runFailed(d: Dispatch, cause: unknown): Promise<ReceiverResponse> {
  try {
    await d.options.inbox.release(d.key);
  } catch (releaseCause) {
    const text =
      'The inbox store could not release the claim of a failed event; redeliveries get 503 until its lease ends';
    failure(d, 'INBOX_UNAVAILABLE', text, releaseCause).tell(500);
  }
  return handlerFailed(d, cause);
}

function handlerFailed(d: Dispatch, cause: unknown): ReceiverResponse {
  const message = `The ${d.job.runner} failed; the event will be handled again when it is redelivered`;
  return failure(d, 'HANDLER_FAILED', `The ${d.job.runner} threw`, cause).refuse(message);
}

const handled = (d: Dispatch) => okResponse(d.job.outcome, d.key.eventId, d.scope.correlationId);
