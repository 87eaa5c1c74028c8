import type { OutboundEnvelope } from '../contract/schemas/envelope.js';
import type { DeliveryOutcome } from './answers.js';
import type { ParsedDelivery } from './parse-delivery.js';
import type { NormalizedReceiverOptions } from './receiver-options.js';
import type { DeliveryContext, UnhandledEvent } from './receiver-types.js';

/** The callback to run for one event (a handler or `onUnhandled`) and what its success means. */
export interface EventRun {
  /** Runs the callback with `ctx.tx` set to `tx` (the inbox's transaction, or `undefined`). */
  run: (tx: unknown) => unknown;
  outcome: Extract<DeliveryOutcome, 'handled' | 'unhandled'>;
  /** Who is running, for messages: `LoyaltyRuleChanged handler` or `onUnhandled`. */
  runner: string;
}

/**
 * `job.run` as a store's transaction callback that remembers whether it ran and its own failure,
 * so that a rejection of the store is told apart: the callback's, or the store's.
 */
export function watchedRun(job: EventRun) {
  const seen: { ran: boolean; failed?: { cause: unknown } } = { ran: false };
  const work = async (tx: unknown): Promise<void> => {
    seen.ran = true;
    try {
      await job.run(tx);
    } catch (cause) {
      seen.failed = { cause };
      throw cause;
    }
  };
  return { seen, work };
}

/** The delivery context without `tx`, which is known only once the inbox opened its transaction. */
export type BaseContext = Omit<DeliveryContext, 'tx'>;

type Handler = (event: OutboundEnvelope, ctx: DeliveryContext<unknown>) => unknown;

/** The handler of the event's type, else `onUnhandled` with the reason, else nothing to run. */
export function pickRun(
  config: NormalizedReceiverOptions,
  parsed: Exclude<ParsedDelivery, { kind: 'invalid' }>,
  base: BaseContext,
): EventRun | undefined {
  // Written out rather than spread: the copy is on every handled delivery's path, and written out
  // it keeps the receiver within its goal beside stripe's constructEvent (bench/README.md).
  const context = (tx: unknown): DeliveryContext<unknown> => ({
    tenantId: base.tenantId,
    correlationId: base.correlationId,
    receivedAt: base.receivedAt,
    signatureTimestamp: base.signatureTimestamp,
    secretIndex: base.secretIndex,
    tx,
  });
  if (parsed.kind === 'event') {
    const { event } = parsed;
    const handler = config.handlers[event.eventType] as Handler | undefined;
    if (handler)
      return {
        run: (tx) => handler(event, context(tx)),
        outcome: 'handled',
        runner: `${event.eventType} handler`,
      };
  }
  const { onUnhandled } = config;
  if (!onUnhandled) return undefined;
  const reason = parsed.kind === 'event' ? 'no-handler' : parsed.reason;
  const event = parsed.event as UnhandledEvent;
  return {
    run: (tx) => onUnhandled(event, { ...context(tx), reason }),
    outcome: 'unhandled',
    runner: 'onUnhandled callback',
  };
}
