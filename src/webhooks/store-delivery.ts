import type { RawBody } from '../signature/bytes.js';
import { toBytes } from '../signature/bytes.js';
import { okResponse, type ReceiverResponse } from './answers.js';
import type { BaseContext, EventRun } from './event-run.js';
import type { DeferredInboxStore } from './inbox.js';
import type { ParsedDelivery } from './parse-delivery.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { type FailureScope, refuse } from './report-failure.js';
import { WebhookError } from './webhook-error.js';

const decoder = new TextDecoder();

/** What `receive` knows of a verified, parsed delivery when it is stored instead of handled. */
export interface ToStore {
  eventId: string;
  eventType: string;
  rawBody: RawBody;
  base: BaseContext;
  /** What this receiver would run now; none: the delivery is stored `parked`. */
  job: EventRun | undefined;
  /** Why it is parked (when `job` is absent). */
  parkedBecause: string;
}

/**
 * Deferred mode: stores a verified delivery with its raw body (what this version cannot handle,
 * `parked`) and answers 200 at once, `duplicate` for a copy; 503 when the store fails.
 */
export async function storeDelivery(
  config: NormalizedReceiverOptions,
  inbox: DeferredInboxStore<unknown>,
  delivery: ToStore,
  scope: FailureScope,
): Promise<{ answer: ReceiverResponse; stored: 'pending' | 'parked' | undefined }> {
  const { eventId, eventType, base } = delivery;
  const state = delivery.job ? 'pending' : 'parked';
  try {
    const found = await inbox.store(
      {
        eventId,
        eventType,
        tenantId: base.tenantId,
        rawBody:
          typeof delivery.rawBody === 'string' ? delivery.rawBody : decoder.decode(toBytes(delivery.rawBody)),
        correlationId: base.correlationId,
        signatureTimestamp: base.signatureTimestamp,
        secretIndex: base.secretIndex,
        receivedAt: base.receivedAt.getTime(),
      },
      state,
      delivery.job ? undefined : delivery.parkedBecause,
    );
    const outcome = found === 'stored' ? 'stored' : 'duplicate';
    return {
      answer: okResponse(outcome, eventId, base.correlationId),
      stored: found === 'stored' ? state : undefined,
    };
  } catch (cause) {
    const error = new WebhookError('INBOX_UNAVAILABLE', 'The inbox store could not store the delivery', {
      cause,
      eventId,
      eventType,
    });
    const message = 'The receiver cannot record events now; retry later';
    const answer = refuse(config, error, 'INBOX_UNAVAILABLE', message, { ...scope, eventId, eventType });
    return { answer, stored: undefined };
  }
}

/** Why this version cannot handle a delivery, as `list` shows it. */
export function parkReason(parsed: Exclude<ParsedDelivery, { kind: 'invalid' }>): string {
  if (parsed.kind === 'event') return `No handler for ${parsed.event.eventType} and no onUnhandled`;
  if (parsed.reason === 'unsupported-schema-version')
    return `schemaVersion ${String(parsed.event.schemaVersion)} is not supported by this version`;
  return `Unknown event type ${parsed.event.eventType}`;
}
