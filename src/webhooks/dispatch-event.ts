import { errorResponse, okResponse, type ReceiverResponse } from './answers.js';
import type { EventRun } from './event-run.js';
import type { InboxClaim, InboxKey } from './inbox.js';
import { andThen, isThenable, type MaybePromise } from './maybe-async.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { type FailureScope, refuse, report } from './report-failure.js';
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
 * Runs the callback at most once per tenant and `eventId`: claim in the inbox, run, then mark it
 * done, or release the claim when the callback throws so that the service's redelivery runs it
 * again. A copy arriving while the first is running is told to come back later (503). Each step
 * waits only for what returned a promise, so a synchronous inbox and handler answer at once.
 */
export function dispatchEvent(
  options: NormalizedReceiverOptions,
  key: InboxKey,
  job: EventRun,
  scope: FailureScope,
): MaybePromise<ReceiverResponse> {
  const dispatch: Dispatch = { options, key, job, scope };
  let claim: MaybePromise<InboxClaim>;
  try {
    claim = andThen(options.inbox.begin(key), checkedClaim);
  } catch (cause) {
    return notClaimed(dispatch, cause);
  }
  return isThenable(claim)
    ? claim.then(
        (found) => claimed(dispatch, found),
        (cause) => notClaimed(dispatch, cause),
      )
    : claimed(dispatch, claim);
}

function checkedClaim(claim: unknown): InboxClaim {
  if (!CLAIMS.has(claim)) throw new TypeError(`InboxStore.begin returned ${String(claim)}`);
  return claim as InboxClaim;
}

/** The scope of a failure once the event is known, for `onError`. */
const scopeOf = ({ scope, key }: Dispatch): FailureScope => ({
  ...scope,
  eventId: key.eventId,
  eventType: key.eventType,
});

const failure = (
  code: 'HANDLER_FAILED' | 'INBOX_UNAVAILABLE',
  message: string,
  d: Dispatch,
  cause: unknown,
) => new WebhookError(code, message, { cause, eventId: d.key.eventId, eventType: d.key.eventType });

function notClaimed(d: Dispatch, cause: unknown): ReceiverResponse {
  const error = failure('INBOX_UNAVAILABLE', 'The inbox store could not claim the event', d, cause);
  const message = 'The receiver cannot record events now; retry later';
  return refuse(d.options, error, 'INBOX_UNAVAILABLE', message, scopeOf(d));
}

function claimed(d: Dispatch, claim: InboxClaim): MaybePromise<ReceiverResponse> {
  const { eventId } = d.key;
  if (claim === 'done') return okResponse('duplicate', eventId, d.scope.correlationId);
  if (claim === 'in-progress') {
    const message = `Event ${eventId} is still being handled by an earlier delivery; retry later`;
    return errorResponse('EVENT_IN_PROGRESS', message, d.scope.correlationId);
  }
  try {
    const result = d.job.run();
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        () => completed(d),
        (cause) => runFailed(d, cause),
      );
    }
  } catch (cause) {
    return runFailed(d, cause);
  }
  return completed(d);
}

/** The callback threw: release the claim so that the redelivery runs it again, and answer 500. */
function runFailed(d: Dispatch, cause: unknown): MaybePromise<ReceiverResponse> {
  const scope = scopeOf(d);
  const error = failure('HANDLER_FAILED', `The ${d.job.runner} threw`, d, cause);
  const message = `The ${d.job.runner} failed; the event will be handled again when it is redelivered`;
  const answer = () => refuse(d.options, error, 'HANDLER_FAILED', message, scope);
  const stuck = (releaseCause: unknown) => {
    const text =
      'The inbox store could not release the claim of a failed event; redeliveries get 503 until it is released';
    report(d.options.onError, failure('INBOX_UNAVAILABLE', text, d, releaseCause), scope, 500);
    return answer();
  };
  try {
    const released = d.options.inbox.release(d.key);
    if (isThenable(released)) return Promise.resolve(released).then(answer, stuck);
  } catch (releaseCause) {
    return stuck(releaseCause);
  }
  return answer();
}

/** The callback succeeded: record it, and answer 200 even if the store cannot record it. */
function completed(d: Dispatch): MaybePromise<ReceiverResponse> {
  try {
    const recorded = d.options.inbox.complete(d.key);
    if (isThenable(recorded)) {
      return Promise.resolve(recorded).then(
        () => handled(d),
        (cause) => unrecorded(d, cause),
      );
    }
  } catch (cause) {
    return unrecorded(d, cause);
  }
  return handled(d);
}

const handled = (d: Dispatch) => okResponse(d.job.outcome, d.key.eventId, d.scope.correlationId);

// The handler's work is done: answering 5xx would only make the service run it again.
function unrecorded(d: Dispatch, cause: unknown): ReceiverResponse {
  const text = 'The event was handled but the inbox store could not record it';
  report(d.options.onError, failure('INBOX_UNAVAILABLE', text, d, cause), scopeOf(d), 200);
  return handled(d);
}
