import { randomUUID } from 'node:crypto';
import {
  createEnvelope,
  EVENT_TYPES,
  type EventType,
  type OutboundEnvelope,
  type OutboundEventType,
  type PayloadInput,
} from '../contract/index.js';
import type { MerchantRecord } from './merchant.js';
import { type WireRule, wireEarnRate, wireStampRule } from './rules.js';
import type { WebhookDispatcher } from './webhook-dispatcher.js';

/** Emits one outbound event for a merchant: builds the envelope and queues its delivery. */
export type Emit = <T extends OutboundEventType>(
  merchant: MerchantRecord,
  eventType: T,
  payload: PayloadInput<T>,
  options?: { correlationId?: string | undefined },
) => void;

const isGuid = (value: string | undefined): value is string =>
  value !== undefined && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(value);

/**
 * Builds outbound envelopes with `createEnvelope` (occurredAt on the service's clock) and queues their
 * delivery, whose `X-Correlation-Id` is the envelope's `correlationId`: the business action that
 * produced it. An outbound type not emitted yet stays silent until it ships.
 */
export function createEmitter(
  now: () => number,
  dispatcher: Pick<WebhookDispatcher, 'enqueue'>,
  shipped: ReadonlySet<EventType>,
): Emit {
  return (merchant, eventType, payload, options = {}) => {
    const info: { emitted?: boolean } = EVENT_TYPES[eventType];
    if (info.emitted === false && !shipped.has(eventType)) return;
    const correlationId = isGuid(options.correlationId) ? options.correlationId : randomUUID();
    // IntegrationStatusChanged has no id field in its payload: the integration is the tenant.
    const entityId = EVENT_TYPES[eventType].entityIdField === null ? merchant.tenantId : undefined;
    const envelope = createEnvelope(eventType, payload, {
      occurredAt: new Date(now()),
      correlationId,
      entityId,
    });
    dispatcher.enqueue(merchant.tenantId, envelope as OutboundEnvelope, correlationId);
  };
}

/** LoyaltyRuleChanged for one rule; a FreeEntry card (`undefined`) is not announced. */
export function announceRule(m: MerchantRecord, rule: WireRule | undefined, emit: Emit, now: number): void {
  if (!rule) return;
  emit(m, 'LoyaltyRuleChanged', {
    externalStoreId: m.externalStoreId,
    effectiveFrom: new Date(now).toISOString(),
    ...rule,
  });
}

/** Every rule of the store, as announced when the merchant activates. */
export function announceAllRules(merchant: MerchantRecord, emit: Emit, now: number): void {
  if (merchant.earnRate) announceRule(merchant, wireEarnRate(merchant.earnRate), emit, now);
  for (const card of merchant.stampCards.values()) announceRule(merchant, wireStampRule(card), emit, now);
}
