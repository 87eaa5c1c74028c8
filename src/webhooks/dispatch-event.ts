import { type DeliveryOutcome, errorResponse, okResponse, type ReceiverResponse } from './answers.js';
import type { InboxClaim, InboxKey } from './inbox.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { type FailureScope, refuse, report } from './report-failure.js';
import { WebhookError } from './webhook-error.js';

/** The callback to run for one event (a handler or `onUnhandled`) and what its success means. */
export interface EventRun {
  run: () => unknown;
  outcome: Extract<DeliveryOutcome, 'handled' | 'unhandled'>;
  /** Who is running, for messages: `LoyaltyRuleChanged handler` or `onUnhandled`. */
  runner: string;
}

const CLAIMS: ReadonlySet<unknown> = new Set<InboxClaim>(['new', 'done', 'in-progress']);

/**
 * Runs the callback at most once per tenant and `eventId`: claim in the inbox, run, then mark it
 * done, or release the claim when the callback throws so that the service's redelivery runs it
 * again. A copy arriving while the first is running is told to come back later (503).
 */
export async function dispatchEvent(
  options: NormalizedReceiverOptions,
  key: InboxKey,
  job: EventRun,
  scope: FailureScope,
): Promise<ReceiverResponse> {
  const { eventId, eventType } = key;
  const where = { eventId, eventType };
  let claim: unknown;
  try {
    claim = await options.inbox.begin(key);
    if (!CLAIMS.has(claim)) throw new TypeError(`InboxStore.begin returned ${String(claim)}`);
  } catch (cause) {
    const error = new WebhookError('INBOX_UNAVAILABLE', 'The inbox store could not claim the event', {
      cause,
      ...where,
    });
    return refuse(
      options,
      error,
      'INBOX_UNAVAILABLE',
      'The receiver cannot record events now; retry later',
      scope,
    );
  }
  if (claim === 'done') return okResponse('duplicate', eventId, scope.correlationId);
  if (claim === 'in-progress') {
    const message = `Event ${eventId} is still being handled by an earlier delivery; retry later`;
    return errorResponse('EVENT_IN_PROGRESS', message, scope.correlationId);
  }

  try {
    await job.run();
  } catch (cause) {
    const error = new WebhookError('HANDLER_FAILED', `The ${job.runner} threw`, { cause, ...where });
    try {
      await options.inbox.release(key);
    } catch (releaseCause) {
      const stuck = new WebhookError(
        'INBOX_UNAVAILABLE',
        'The inbox store could not release the claim of a failed event; redeliveries get 503 until it is released',
        { cause: releaseCause, ...where },
      );
      report(options.onError, stuck, scope, 500);
    }
    const message = `The ${job.runner} failed; the event will be handled again when it is redelivered`;
    return refuse(options, error, 'HANDLER_FAILED', message, scope);
  }

  try {
    await options.inbox.complete(key);
  } catch (cause) {
    // The handler's work is done: answering 5xx would only make the service run it again.
    const error = new WebhookError(
      'INBOX_UNAVAILABLE',
      'The event was handled but the inbox store could not record it',
      {
        cause,
        ...where,
      },
    );
    report(options.onError, error, scope, 200);
  }
  return okResponse(job.outcome, eventId, scope.correlationId);
}
