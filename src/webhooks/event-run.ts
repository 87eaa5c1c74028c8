import type { OutboundEnvelope } from '../contract/schemas/envelope.js';
import type { DeliveryOutcome } from './answers.js';
import type { ParsedDelivery } from './parse-delivery.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import type { DeliveryContext, UnhandledEvent } from './receiver-types.js';

/** The callback to run for one event (a handler or `onUnhandled`) and what its success means. */
export interface EventRun {
  run: () => unknown;
  outcome: Extract<DeliveryOutcome, 'handled' | 'unhandled'>;
  /** Who is running, for messages: `LoyaltyRuleChanged handler` or `onUnhandled`. */
  runner: string;
}

type Handler = (event: OutboundEnvelope, ctx: DeliveryContext) => unknown;

/** The handler of the event's type, else `onUnhandled` with the reason, else nothing to run. */
export function pickRun(
  config: NormalizedReceiverOptions,
  parsed: Exclude<ParsedDelivery, { kind: 'invalid' }>,
  ctx: DeliveryContext,
): EventRun | undefined {
  if (parsed.kind === 'event') {
    const { event } = parsed;
    const handler = config.handlers[event.eventType] as Handler | undefined;
    if (handler)
      return { run: () => handler(event, ctx), outcome: 'handled', runner: `${event.eventType} handler` };
  }
  const { onUnhandled } = config;
  if (!onUnhandled) return undefined;
  const reason = parsed.kind === 'event' ? 'no-handler' : parsed.reason;
  const event = parsed.event as UnhandledEvent;
  return {
    run: () =>
      // Written out rather than spread, for the reason given where ctx is built (create-receiver.ts).
      onUnhandled(event, {
        tenantId: ctx.tenantId,
        correlationId: ctx.correlationId,
        receivedAt: ctx.receivedAt,
        signatureTimestamp: ctx.signatureTimestamp,
        secretIndex: ctx.secretIndex,
        reason,
      }),
    outcome: 'unhandled',
    runner: 'onUnhandled callback',
  };
}
