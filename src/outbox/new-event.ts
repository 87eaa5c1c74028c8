import { envelopeOf } from '../contract/create-envelope.js';
import {
  assertInboundEventType,
  type InboundEnvelope,
  type InboundEventType,
  LoyaltyValidationError,
  type PayloadInput,
} from '../contract/index.js';
import { sealValidated } from '../contract/validated-envelopes.js';
import { parsePayload } from '../platform-node/envelope.js';
import type { EnqueueOptions } from './outbox-api.js';
import type { StoredEvent } from './store.js';

/** Validates an `enqueue` call as `client.send` would and builds the event, its `eventId` final. */
export function newEvent<T extends InboundEventType>(
  eventType: T,
  payload: PayloadInput<T>,
  options: EnqueueOptions<unknown>,
  defaults: { tenantId: string | undefined; seq: number; now: number },
): StoredEvent {
  const { tenantId = defaults.tenantId, tx: _tx, ...envelopeOptions } = options;
  if (typeof tenantId !== 'string' || tenantId.length === 0) {
    throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid enqueue options', [
      { path: 'tenantId', message: 'is required when the outbox has clientFor (one client per tenant)' },
    ]);
  }
  assertInboundEventType(eventType);
  // Validated here once: sealed (frozen), the client sends it without parsing it again.
  const parsed = parsePayload(eventType, payload);
  const envelope = sealValidated(envelopeOf(eventType, parsed, envelopeOptions) as InboundEnvelope);
  return {
    eventId: envelope.eventId,
    tenantId,
    envelope,
    seq: defaults.seq,
    enqueuedAt: defaults.now,
    state: 'pending',
    attempts: 0,
    firstAttemptAt: null,
    lastError: null,
  };
}
