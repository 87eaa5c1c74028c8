import { type RawBody, toBytes } from '../signature/bytes.js';
import { okResponse, type ReceiverResponse } from './answers.js';
import type { BaseContext } from './event-run.js';
import type { DeferredInboxStore } from './inbox.js';
import type { ParsedDelivery } from './parse-delivery.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import { type FailureScope, refuse } from './report-failure.js';
import { WebhookError } from './webhook-error.js';

const decoder = new TextDecoder();

/**
 * Deferred mode: stores a verified delivery with its raw body (`parked` with `parkedBecause` when
 * this version cannot handle it) and answers 200 at once, `duplicate` for a copy; 503 when the
 * store fails.
 */
export async function storeDelivery(
  config: NormalizedReceiverOptions,
  inbox: DeferredInboxStore<unknown>,
  delivery: BaseContext & { eventId: string; eventType: string; rawBody: RawBody },
  parkedBecause: string | undefined,
  scope: FailureScope,
): Promise<{ answer: ReceiverResponse; stored: 'pending' | 'parked' | undefined }> {
  const { eventId, eventType, rawBody, receivedAt, correlationId } = delivery;
  const state = parkedBecause === undefined ? 'pending' : 'parked';
  try {
    const text = typeof rawBody === 'string' ? rawBody : decoder.decode(toBytes(rawBody));
    const stored = { ...delivery, rawBody: text, receivedAt: receivedAt.getTime() };
    const found = await inbox.store(stored, state, parkedBecause);
    return {
      answer: okResponse(found === 'stored' ? 'stored' : 'duplicate', eventId, correlationId),
      stored: found === 'stored' ? state : undefined,
    };
  } catch (cause) {
    const text = 'The inbox store could not store the delivery';
    const error = new WebhookError('INBOX_UNAVAILABLE', text, { cause, eventId, eventType });
    const message = 'The receiver cannot record events now; retry later';
    return { answer: refuse(config, error, message, { ...scope, eventId, eventType }), stored: undefined };
  }
}

/** Why this version cannot handle a delivery, as `list` shows it. */
export function parkReason(parsed: Exclude<ParsedDelivery, { kind: 'invalid' }>): string {
  if (parsed.kind === 'event') return `No handler for ${parsed.event.eventType} and no onUnhandled`;
  if (parsed.reason === 'unsupported-schema-version')
    return `schemaVersion ${String(parsed.event.schemaVersion)} is not supported by this version`;
  return `Unknown event type ${parsed.event.eventType}`;
}
