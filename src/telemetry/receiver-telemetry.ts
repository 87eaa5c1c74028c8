import { writeLog } from '../contract/logger.js';
import { runWithSpan } from './global-otel.js';
import type {
  BatchObservableResultLike,
  CounterLike,
  HistogramLike,
  MeterLike,
  ObservableLike,
  SpanLike,
} from './otel-types.js';
import { SPAN_KIND, SPAN_STATUS } from './otel-types.js';
import { ATTR, DURATION_BUCKETS, MESSAGING_SYSTEM } from './semconv.js';
import { Telemetry, type TelemetryOptions } from './telemetry.js';

/** The receiver's instruments. */
export interface ReceiverInstruments {
  deliveries: CounterLike;
  handlerDuration: HistogramLike;
  /** Deferred mode: deliveries stored, and the outcome of each run from the inbox. */
  deferred: CounterLike;
  /** Deferred mode: stored deliveries per state, read from the inbox at each collection. */
  inboxDepth: ObservableLike;
}

/** The attribute of a stored delivery's state on `loyalty.receiver.inbox.depth`. */
const INBOX_STATE = 'loyalty.inbox.state';

const receiverInstruments = (meter: MeterLike): ReceiverInstruments => ({
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
  deferred: meter.createCounter('loyalty.receiver.deferred', {
    description:
      'Deferred receiver: deliveries stored, and runs from the inbox by outcome (handled, retried, dead, parked)',
    unit: '{delivery}',
  }),
  inboxDepth: meter.createObservableGauge('loyalty.receiver.inbox.depth', {
    description: 'Deliveries stored in the receiver inbox, per state (pending, handled, dead, parked)',
    unit: '{delivery}',
  }),
});

/** The receiver's telemetry: created once per receiver. */
export const receiverTelemetry = (options: TelemetryOptions): Telemetry<ReceiverInstruments> =>
  new Telemetry(options, receiverInstruments);

/** The answer of a delivery as the receiver returns it. */
interface Answer {
  status: number;
  body: string;
}

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
    const attributes: Record<string, string> = {
      [ATTR.messagingSystem]: MESSAGING_SYSTEM,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'process',
      [ATTR.correlationId]: correlationId,
    };
    if (tenantId) attributes[ATTR.tenant] = tenantId;
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
      const attributes: Record<string, string> = {};
      if (this.#eventType !== undefined) attributes[ATTR.destination] = this.#eventType;
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
  answered(answer: Answer): void {
    const ok = answer.status >= 200 && answer.status < 300;
    const code = ok ? undefined : (CODE.exec(answer.body)?.[1] ?? `HTTP_${answer.status}`);
    const outcome = ok
      ? (OUTCOME.exec(answer.body)?.[1] ?? 'handled')
      : code === 'EVENT_IN_PROGRESS'
        ? 'in_progress'
        : 'refused';
    const span = this.#span;
    if (span) {
      span.setAttribute(ATTR.outcome, outcome);
      if (code !== undefined) {
        span.setAttribute(ATTR.errorType, code);
        span.setStatus({ code: SPAN_STATUS.ERROR });
      }
      span.end();
    }
    const instruments = this.telemetry.instruments();
    if (instruments) {
      const attributes: Record<string, string> = { [ATTR.outcome]: outcome };
      if (code !== undefined) attributes[ATTR.errorType] = code;
      if (this.#eventType !== undefined) attributes[ATTR.destination] = this.#eventType;
      if (this.tenantId)
        attributes[ATTR.tenant] = this.#authenticated ? this.tenantId : UNAUTHENTICATED_TENANT;
      instruments.deliveries.add(1, attributes);
    }
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
      writeLog(
        this.telemetry.logger,
        setup || answer.status >= 500 ? 'error' : 'warn',
        setup ? 'loyalty.receiver.misconfiguration' : 'loyalty.receiver.refused',
        `Delivery refused with ${answer.status} ${code}`,
        fields,
      );
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
  const instruments = telemetry.instruments();
  if (!instruments) return;
  const attributes: Record<string, string> = { [ATTR.outcome]: outcome, [ATTR.destination]: eventType };
  if (tenantId) attributes[ATTR.tenant] = tenantId;
  instruments.deferred.add(1, attributes);
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
    attributes: {
      [ATTR.messagingSystem]: MESSAGING_SYSTEM,
      [ATTR.operationType]: 'process',
      [ATTR.operationName]: 'process',
      [ATTR.correlationId]: claim.correlationId,
      [ATTR.destination]: claim.eventType,
      [ATTR.messageId]: claim.eventId,
      'loyalty.attempt': claim.attempt,
      ...(claim.tenantId ? { [ATTR.tenant]: claim.tenantId } : {}),
    },
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

/**
 * Registers the inbox depth gauge with the meter in use now; returns what unregisters it.
 * `read` (the store's `stats`) is called at each collection, never between.
 */
export function observeInbox(
  telemetry: Telemetry<ReceiverInstruments>,
  read: () => Promise<Record<string, number>>,
): () => void {
  const meter = telemetry.meter();
  const instruments = telemetry.instruments();
  if (!meter || !instruments) return () => undefined;
  const { inboxDepth } = instruments;
  // A store that cannot answer reports nothing this time rather than failing the collection.
  const callback = async (result: BatchObservableResultLike) => {
    const counts = await Promise.resolve()
      .then(read)
      .catch(() => ({}));
    for (const [state, count] of Object.entries(counts)) {
      result.observe(inboxDepth, count, { [INBOX_STATE]: state });
    }
  };
  meter.addBatchObservableCallback(callback, [inboxDepth]);
  return () => meter.removeBatchObservableCallback(callback, [inboxDepth]);
}
