import { errorCodeInfo } from '../contract/error-codes.js';
import { type LogFields, writeLog } from '../contract/logger.js';
import { contextWith } from './global-otel.js';
import type { MeterLike, SpanLike } from './otel-types.js';
import { SPAN_KIND } from './otel-types.js';
import { ATTR, attributesOf, DURATION_BUCKETS, endSpan, messagingAttributes, serverOf } from './semconv.js';
import { Telemetry, type TelemetryOptions } from './telemetry.js';
import { parseTraceparent } from './traceparent.js';

const clientInstruments = (meter: MeterLike) => ({
  attempts: meter.createCounter('loyalty.client.attempts', {
    description: 'HTTP attempts to the Loyalty service, by status and error code',
    unit: '{attempt}',
  }),
  retries: meter.createCounter('loyalty.client.retries', {
    description: 'Attempts retried, by the error code that caused the retry',
    unit: '{retry}',
  }),
  sendDuration: meter.createHistogram('loyalty.client.send.duration', {
    description: 'Time of one send, every attempt and backoff included',
    unit: 's',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  }),
});

/** The client's instruments. */
export type ClientInstruments = ReturnType<typeof clientInstruments>;

/** The client's telemetry: created once per client. */
export const clientTelemetry = (options: TelemetryOptions): Telemetry<ClientInstruments> =>
  new Telemetry(options, clientInstruments);

/** What the client knows of a call when it starts. */
export interface CallInfo {
  method: string;
  origin: string;
  /** Path below the origin, query excluded: it is the `url.template` (a lookup's query holds a phone number). */
  template: string;
  eventType?: string | undefined;
  eventId?: string | undefined;
  correlationId?: string | undefined;
  tenantId?: string | undefined;
  /** A `traceparent` the send span links to (the outbox's `create` span). */
  linkTo?: string | undefined;
}

/** What one attempt came to: an answer (any status) or none. */
export interface AttemptResult {
  status?: number | undefined;
  /** The contract's error code, `HTTP_<status>`, `TIMEOUT` or `NETWORK_ERROR`; none for a 2xx. */
  code?: string | undefined;
}

/** Codes that mean the partner's setup is wrong, not the event: logged as misconfiguration. */
const SETUP_ACTIONS: ReadonlySet<string> = new Set(['reauthenticate', 'fix-setup', 'check-clock']);

/**
 * One call's telemetry: its `send {eventType}` PRODUCER span (events only), one HTTP CLIENT span
 * per attempt under it, the metrics and the log lines. Made only when something is on.
 */
export class CallTelemetry {
  readonly #span: SpanLike | undefined;
  readonly #started = performance.now();
  readonly #base: LogFields;
  #attempt: SpanLike | undefined;
  #attempts = 0;

  constructor(
    private readonly telemetry: Telemetry<ClientInstruments>,
    private readonly call: CallInfo,
  ) {
    const { eventType, eventId, correlationId, tenantId } = call;
    this.#base = { eventType, eventId, correlationId, tenantId };
    const tracer = telemetry.tracer();
    if (!tracer || eventType === undefined) return;
    const link = parseTraceparent(call.linkTo);
    this.#span = tracer.startSpan(`send ${eventType}`, {
      kind: SPAN_KIND.PRODUCER,
      attributes: messagingAttributes('send', {
        [ATTR.destination]: eventType,
        [ATTR.messageId]: eventId,
        [ATTR.correlationId]: correlationId,
        [ATTR.tenant]: tenantId,
      }),
      ...(link && { links: [{ context: link }] }),
    });
  }

  /** Before attempt `n` (1 for the first) goes out. */
  attemptStarted(n: number): void {
    this.#attempts = n;
    const tracer = this.telemetry.tracer();
    if (!tracer) return;
    const { method, origin, template } = this.call;
    const server = serverOf(origin);
    const attributes = attributesOf({
      [ATTR.httpMethod]: method,
      [ATTR.urlTemplate]: template,
      [ATTR.serverAddress]: server.address,
      [ATTR.serverPort]: server.port,
      [ATTR.resendCount]: n > 1 ? n - 1 : undefined,
    });
    const parent = this.#span && contextWith(this.#span);
    this.#attempt = tracer.startSpan(method, { kind: SPAN_KIND.CLIENT, attributes }, parent);
  }

  /** When attempt `n` has its answer, or none. */
  attemptEnded(result: AttemptResult): void {
    const { status, code } = result;
    if (status !== undefined) this.#attempt?.setAttribute(ATTR.httpStatus, status);
    endSpan(this.#attempt, code);
    this.#attempt = undefined;
    this.telemetry.instruments()?.attempts.add(
      1,
      attributesOf({
        [ATTR.httpMethod]: this.call.method,
        [ATTR.destination]: this.call.eventType,
        [ATTR.httpStatus]: status,
        [ATTR.errorType]: code,
      }),
    );
  }

  /** A failed attempt will be retried after `delayMs`. */
  retrying(code: string, status: number | undefined, delayMs: number, correlationId?: string): void {
    this.telemetry.instruments()?.retries.add(1, { [ATTR.errorType]: code });
    writeLog(this.telemetry.logger, 'warn', 'loyalty.client.retry', `Retrying after ${code}`, {
      ...this.#base,
      attempt: this.#attempts,
      status,
      code,
      delayMs,
      responseCorrelationId: correlationId,
    });
  }

  /** A `401 SIGNATURE_EXPIRED` taught the client the service's time: the local clock is off. */
  clockSkew(offsetMs: number, previousOffsetMs: number): void {
    const message = `Local clock is off by ${offsetMs} ms from the service's: check NTP`;
    writeLog(this.telemetry.logger, 'warn', 'loyalty.client.clock_skew', message, {
      offsetMs,
      previousOffsetMs,
    });
  }

  /** The call succeeded. */
  succeeded(): void {
    this.#finish(undefined);
  }

  /** The call failed with `error` (a `LoyaltyApiError`, `LoyaltyNetworkError`, or an abort reason). */
  failed(error: unknown): void {
    const { code, status, action } = (error ?? {}) as { code?: unknown; status?: unknown; action?: unknown };
    const errorType = typeof code === 'string' ? code : ((error as Error | undefined)?.name ?? 'Error');
    this.#finish(errorType);
    const fields = { ...this.#base, attempts: this.#attempts, code: errorType, status: status as number };
    const log = (name: string, message: string) =>
      writeLog(this.telemetry.logger, 'error', `loyalty.client.${name}`, message, fields);
    if (typeof action === 'string' && SETUP_ACTIONS.has(action)) {
      const remedy = typeof code === 'string' ? errorCodeInfo(code)?.remedy : undefined;
      log('misconfiguration', `${errorType}${remedy ? `: ${remedy}` : ''}`);
    } else if (typeof status === 'number') log('refused', `The service refused: ${errorType}`);
    else log('failed', `Not delivered: ${errorType}`);
  }

  #finish(errorType: string | undefined): void {
    endSpan(this.#span, errorType);
    if (this.call.eventType === undefined) return;
    const seconds = (performance.now() - this.#started) / 1000;
    this.telemetry
      .instruments()
      ?.sendDuration.record(
        seconds,
        attributesOf({ [ATTR.destination]: this.call.eventType, [ATTR.errorType]: errorType }),
      );
  }
}
