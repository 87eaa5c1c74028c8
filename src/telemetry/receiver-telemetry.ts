import { writeLog } from '../contract/logger.js';
import { runWithSpan } from './global-otel.js';
import type { MeterLike, SpanLike } from './otel-types.js';
import { SPAN_KIND, SPAN_STATUS } from './otel-types.js';
import { ATTR, attributesOf, DURATION_BUCKETS, endSpan, messagingAttributes } from './semconv.js';
import { observeGauges, Telemetry, type TelemetryOptions } from './telemetry.js';

const receiverInstruments = (meter: MeterLike) => ({
  deliveries: meter.createCounter('loyalty.receiver.deliveries', {
    description:
      'Webhook deliveries by outcome (handled, duplicate, unhandled, in_progress, refused) and code',
    unit: '{delivery}',
  }),
  handlerDuration: meter.createHistogram('loyalty.receiver.handler.duration', {
    description: 'Time of the handler (or onUnhandled) of one event',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  }),
  /** Deferred mode: deliveries stored, and the outcome of each run from the inbox. */
  deferred: meter.createCounter('loyalty.receiver.deferred', {
    description:
      'Deferred receiver: deliveries stored, and runs from the inbox by outcome (handled, retried, dead, parked)',
    unit: '{delivery}',
  }),
  /** Deferred mode: stored deliveries per state, read from the inbox at each collection. */
  inboxDepth: meter.createObservableGauge('loyalty.receiver.inbox.depth', {
    description: 'Deliveries stored in the receiver inbox, per state (pending, handled, dead, parked)',
    unit: '{delivery}',
  }),
});

/** The receiver's instruments. */
export type ReceiverInstruments = ReturnType<typeof receiverInstruments>;

/** The receiver's telemetry: created once per receiver. */
export const receiverTelemetry = (options: TelemetryOptions): Telemetry<ReceiverInstruments> =>
  new Telemetry(options, receiverInstruments);

// The receiver's bodies are its own JSON, written by webhooks/answers.ts: the outcome or code is
// read back from them rather than threaded through every step of a delivery.
const OUTCOME = /^\{"outcome":"([a-z_-]+)"/;
const CODE = /"code":"([A-Z0-9_]+)"/;

/** The tenant attribute of a delivery whose signature did not pass. */
const UNAUTHENTICATED_TENANT = 'other';

/** Codes that say the receiver's own setup is wrong, not the delivery. */
const SETUP_CODES: ReadonlySet<string> = new Set([
  'SECRETS_UNAVAILABLE',
  'RAW_BODY_UNAVAILABLE',
  'INBOX_UNAVAILABLE',
]);

/**
 * One delivery's telemetry: its `process {eventType}` CONSUMER span, the outcome counter, the
 * handler's duration and the log line of a refusal. Made only when something is on.
 */
export class DeliveryTelemetry {
  readonly #span: SpanLike | undefined;
  #eventType: string | undefined;
  #eventId: string | undefined;
  #authenticated = false;

  constructor(
    private readonly telemetry: Telemetry<ReceiverInstruments>,
    private readonly tenantId: string | undefined,
    private readonly correlationId: string,
  ) {
    const tracer = telemetry.tracer();
    if (!tracer) return;
    const attributes = messagingAttributes('process', {
      [ATTR.correlationId]: correlationId,
      [ATTR.tenant]: tenantId || undefined,
    });
    this.#span = tracer.startSpan('process', { kind: SPAN_KIND.CONSUMER, attributes });
  }

  /** Runs the delivery with its span active, so that spans of the handler are its children. */
  run<R>(fn: () => R): R {
    return this.#span ? runWithSpan(this.#span, fn) : fn();
  }

  /**
   * The signature passed: from here on the `X-TenantId` is the service's word, not anyone's. A
   * metric attribute taken from an unauthenticated header would let a forger mint one series per
   * request; those deliveries are counted under the bounded value `other`.
   */
  authenticated(): void {
    this.#authenticated = true;
  }

  /** The envelope is parsed: its id and type are known. */
  event(eventId: string, eventType: string): void {
    this.#eventId = eventId;
    this.#eventType = eventType;
    const span = this.#span;
    if (!span) return;
    span.updateName(`process ${eventType}`);
    span.setAttribute(ATTR.destination, eventType);
    span.setAttribute(ATTR.messageId, eventId);
  }

  /** Times a handler run (a promise is timed until it settles). */
  timeHandler<R>(run: () => R): R {
    const instruments = this.telemetry.instruments();
    if (!instruments) return run();
    const started = performance.now();
    const record = () => {
      const attributes = attributesOf({ [ATTR.destination]: this.#eventType });
      instruments.handlerDuration.record((performance.now() - started) / 1000, attributes);
    };
    let result: R;
    try {
      result = run();
    } catch (error) {
      record();
      throw error;
    }
    if (result instanceof Promise) result.then(record, record);
    else record();
    return result;
  }

  /** The answer is ready: ends the span with the outcome, counts it, logs a refusal. */
  answered(answer: { status: number; body: string }): void {
    const ok = answer.status >= 200 && answer.status < 300;
    const code = ok ? undefined : (CODE.exec(answer.body)?.[1] ?? `HTTP_${answer.status}`);
    const outcome = ok
      ? (OUTCOME.exec(answer.body)?.[1] ?? 'handled')
      : code === 'EVENT_IN_PROGRESS'
        ? 'in_progress'
        : 'refused';
    this.#span?.setAttribute(ATTR.outcome, outcome);
    endSpan(this.#span, code);
    const tenant = this.#authenticated ? this.tenantId : UNAUTHENTICATED_TENANT;
    this.telemetry.instruments()?.deliveries.add(
      1,
      attributesOf({
        [ATTR.outcome]: outcome,
        [ATTR.errorType]: code,
        [ATTR.destination]: this.#eventType,
        [ATTR.tenant]: this.tenantId ? tenant : undefined,
      }),
    );
    if (outcome === 'refused') {
      const setup = code !== undefined && SETUP_CODES.has(code);
      const fields = {
        status: answer.status,
        code,
        tenantId: this.tenantId,
        correlationId: this.correlationId,
        eventId: this.#eventId,
        eventType: this.#eventType,
      };
      const level = setup || answer.status >= 500 ? 'error' : 'warn';
      const event = setup ? 'loyalty.receiver.misconfiguration' : 'loyalty.receiver.refused';
      writeLog(this.telemetry.logger, level, event, `Delivery refused with ${answer.status} ${code}`, fields);
    }
  }
}

/** Counts a deferred delivery's step: `stored`, `parked` (when stored) or a run's outcome. */
export function countDeferred(
  telemetry: Telemetry<ReceiverInstruments>,
  outcome: string,
  eventType: string,
  tenantId: string,
): void {
  const attributes = {
    [ATTR.outcome]: outcome,
    [ATTR.destination]: eventType,
    [ATTR.tenant]: tenantId || undefined,
  };
  telemetry.instruments()?.deferred.add(1, attributesOf(attributes));
}

/**
 * One run of a stored delivery from the inbox: a `process {eventType}` CONSUMER span (the
 * handler's spans are its children), ended with the run's outcome, which is also counted.
 */
export async function traceStoredRun<R extends string>(
  telemetry: Telemetry<ReceiverInstruments>,
  claim: { eventId: string; eventType: string; tenantId: string; correlationId: string; attempt: number },
  run: () => Promise<R>,
): Promise<R> {
  const tracer = telemetry.tracer();
  const span = tracer?.startSpan(`process ${claim.eventType}`, {
    kind: SPAN_KIND.CONSUMER,
    attributes: messagingAttributes('process', {
      [ATTR.correlationId]: claim.correlationId,
      [ATTR.destination]: claim.eventType,
      [ATTR.messageId]: claim.eventId,
      'loyalty.attempt': claim.attempt,
      [ATTR.tenant]: claim.tenantId || undefined,
    }),
  });
  try {
    const outcome = await (span ? runWithSpan(span, run) : run());
    span?.setAttribute(ATTR.outcome, outcome);
    if (outcome !== 'handled' && outcome !== 'parked') span?.setStatus({ code: SPAN_STATUS.ERROR });
    countDeferred(telemetry, outcome, claim.eventType, claim.tenantId);
    return outcome;
  } finally {
    span?.end();
  }
}

/** Registers the inbox depth gauge, read from the store's `stats` ({@link observeGauges}). */
export function observeInbox(
  telemetry: Telemetry<ReceiverInstruments>,
  read: () => Promise<Record<string, number>>,
): () => void {
  const inboxDepth = telemetry.instruments()?.inboxDepth;
  if (!inboxDepth) return () => undefined;
  return observeGauges(telemetry, [inboxDepth], read, (result, counts) => {
    for (const [state, count] of Object.entries(counts)) {
      result.observe(inboxDepth, count, { [ATTR.inboxState]: state });
    }
  });
}
