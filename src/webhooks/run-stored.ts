import { callHook } from '../contract/call-hook.js';
import { backoffDelay } from '../internal/backoff.js';
import { pickRun, watchedRun } from './event-run.js';
import type { ClaimedDelivery, DeferredInboxStore } from './inbox.js';
import type { DeliveryParser } from './receiver-build.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { parkReason } from './store-delivery.js';
import { WebhookError } from './webhook-error.js';

/** How one stored delivery's run ended, for telemetry. */
export type StoredOutcome = 'handled' | 'retried' | 'dead' | 'parked' | 'lost' | 'store-failed';

/** Kept in `lastError`: enough to tell the failure, never a whole stack. */
const MAX_ERROR_LENGTH = 1_000;

/**
 * Runs one claimed delivery's handler, parsed again by this version (a replay after an upgrade
 * handles what an older one parked), and writes a failure's outcome (retry, `dead`, `parked`).
 * A success is `handled` when a transactional store wrote the mark, else `succeeded`: the
 * runner's claim loop records it.
 */
export async function runStored(
  config: NormalizedReceiverOptions,
  inbox: DeferredInboxStore<unknown>,
  parse: DeliveryParser,
  claim: ClaimedDelivery,
): Promise<StoredOutcome | 'succeeded'> {
  const parsed = parse(claim.rawBody);
  if (parsed.kind === 'invalid') {
    return parked(inbox, claim, `This version cannot read it: ${parsed.error.message}`);
  }
  // pickRun copies the context's fields one by one: the claim's others never reach a handler.
  const job = pickRun(config, parsed, { ...claim, receivedAt: new Date(claim.receivedAt) });
  if (!job) return parked(inbox, claim, parkReason(parsed));

  const { seen, work } = watchedRun(job);
  try {
    if (inbox.runHandled) return (await inbox.runHandled(claim, work)) ? 'handled' : 'lost';
    await work(undefined);
    return 'succeeded';
  } catch (cause) {
    if (!seen.failed) {
      // The store failed: the claim ends with its lease and a later run takes it over.
      const text = 'The inbox store could not record a stored delivery; it runs again after its lease';
      tell(config, claim, 'INBOX_UNAVAILABLE', text, cause, 503);
      return 'store-failed';
    }
    return failed(config, inbox, claim, seen.failed.cause, job.runner);
  }
}

async function failed(
  config: NormalizedReceiverOptions,
  inbox: DeferredInboxStore<unknown>,
  claim: ClaimedDelivery,
  cause: unknown,
  runner: string,
): Promise<StoredOutcome> {
  const { retry } = config;
  const last = claim.attempt >= retry.maxAttempts;
  const text = last
    ? `The ${runner} threw on run ${claim.attempt} of ${retry.maxAttempts}; the delivery is dead`
    : `The ${runner} threw on run ${claim.attempt} of ${retry.maxAttempts}; it runs again later`;
  tell(config, claim, 'HANDLER_FAILED', text, cause, 500);
  // A wait, not a time: the store adds it to its own clock (a worker's clock may be off).
  const retryInMs = last ? undefined : backoffDelay(claim.attempt, retry);
  return written(
    () => inbox.markFailed(claim, { error: messageOf(cause), retryInMs }),
    last ? 'dead' : 'retried',
  );
}

const parked = (inbox: DeferredInboxStore<unknown>, claim: ClaimedDelivery, reason: string) =>
  written(() => inbox.markParked(claim, reason), 'parked');

/** `outcome` once the store wrote it; 'lost' when the claim was no longer ours. */
const written = (write: () => Promise<boolean>, outcome: StoredOutcome): Promise<StoredOutcome> =>
  Promise.resolve()
    .then(write)
    .then(
      (recorded) => (recorded ? outcome : 'lost'),
      () => 'store-failed',
    );

/** Tells `onError` of a failure about the claimed delivery. */
function tell(
  config: NormalizedReceiverOptions,
  claim: ClaimedDelivery,
  code: WebhookError['code'],
  text: string,
  cause: unknown,
  status: number,
) {
  const { tenantId, correlationId, eventId, eventType } = claim;
  const error = new WebhookError(code, text, { cause, eventId, eventType });
  const receivedAt = new Date(claim.receivedAt);
  callHook(config.onError, error, { tenantId, correlationId, receivedAt, eventId, eventType, status });
}

function messageOf(cause: unknown): string {
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return text.length > MAX_ERROR_LENGTH ? `${text.slice(0, MAX_ERROR_LENGTH)}…` : text;
}
