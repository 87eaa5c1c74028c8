import { type LogFields, type LogLevel, writeLog } from '../contract/logger.js';
import type { MeterLike } from './otel-types.js';
import { SPAN_KIND } from './otel-types.js';
import { ATTR, attributesOf, messagingAttributes } from './semconv.js';
import { observeGauges, Telemetry, type TelemetryOptions } from './telemetry.js';
import { toTraceparent } from './traceparent.js';

const outboxInstruments = (meter: MeterLike) => ({
  /** Events that reached an end state: delivered, parked, dead, expired. */
  outcomes: meter.createCounter('loyalty.outbox.outcomes', {
    description: 'Events that left the queue of pending ones: delivered, parked, dead or expired',
    unit: '{event}',
  }),
  depth: meter.createObservableGauge('loyalty.outbox.depth', {
    description: 'Events waiting to be delivered, per tenant',
    unit: '{event}',
  }),
  oldestAge: meter.createObservableGauge('loyalty.outbox.oldest_age', {
    description: 'Age of the oldest event waiting to be delivered, per tenant',
    unit: 's',
  }),
  events: meter.createObservableGauge('loyalty.outbox.events', {
    description: 'Events the outbox holds, per tenant and state (pending, parked, dead, expired)',
    unit: '{event}',
  }),
});

/** The outbox's instruments. */
export type OutboxInstruments = ReturnType<typeof outboxInstruments>;

/** The outbox's telemetry: created once per outbox. */
export const outboxTelemetry = (options: TelemetryOptions): Telemetry<OutboxInstruments> =>
  new Telemetry(options, outboxInstruments);

/** What the gauges read from the outbox at each collection. */
export interface OutboxGaugeReading {
  tenantId: string;
  /** Events waiting to be delivered. */
  pending: number;
  /** Unix ms of the oldest pending event's enqueue, if any is pending. */
  oldestEnqueuedAt: number | undefined;
  /** Events per state, pending included. */
  states: Readonly<Record<string, number>>;
}

/** Registers the outbox's gauges ({@link observeGauges}); returns what unregisters them. */
export function observeOutbox(
  telemetry: Telemetry<OutboxInstruments>,
  read: () => readonly OutboxGaugeReading[] | Promise<readonly OutboxGaugeReading[]>,
  now: () => number,
): () => void {
  const instruments = telemetry.instruments();
  if (!instruments) return () => undefined;
  const { depth, oldestAge, events } = instruments;
  return observeGauges(telemetry, [depth, oldestAge, events], read, (result, readings) => {
    const at = now();
    for (const tenant of readings) {
      const attributes = { [ATTR.tenant]: tenant.tenantId };
      result.observe(depth, tenant.pending, attributes);
      const age =
        tenant.oldestEnqueuedAt === undefined ? 0 : Math.max(0, at - tenant.oldestEnqueuedAt) / 1000;
      result.observe(oldestAge, age, attributes);
      for (const [state, count] of Object.entries(tenant.states)) {
        result.observe(events, count, { [ATTR.tenant]: tenant.tenantId, [ATTR.state]: state });
      }
    }
  });
}

/**
 * The `create {eventType}` span of an event at `enqueue`, ended at once; returns its context as
 * a `traceparent` to store with the event, so that every later `send` span links to it, even
 * after a restart. `undefined` when tracing is off.
 */
export function createSpan(
  telemetry: Telemetry<OutboxInstruments>,
  event: { eventType: string; eventId: string; tenantId: string; correlationId?: string | undefined },
): string | undefined {
  const tracer = telemetry.tracer();
  if (!tracer) return undefined;
  const attributes = messagingAttributes('create', {
    [ATTR.destination]: event.eventType,
    [ATTR.messageId]: event.eventId,
    [ATTR.tenant]: event.tenantId,
    [ATTR.correlationId]: event.correlationId,
  });
  const span = tracer.startSpan(`create ${event.eventType}`, { kind: SPAN_KIND.PRODUCER, attributes });
  span.end();
  return toTraceparent(span.spanContext());
}

/** An event's ids, for log lines and metric attributes: never its payload. */
interface EventRef {
  eventId: string;
  tenantId: string;
  envelope: { eventType: string; correlationId?: string | undefined };
  attempts: number;
}

const fieldsOf = (event: EventRef) => ({
  eventId: event.eventId,
  eventType: event.envelope.eventType,
  tenantId: event.tenantId,
  correlationId: event.envelope.correlationId,
  attempts: event.attempts,
});

/**
 * The outbox's log lines and outcome counts, as hooks: the outbox calls them beside the user's
 * own (`onRetry`, `onParked`, `onDead`, `onExpired`, `onDelivered`, `onTenantPaused`,
 * `onTenantStopped`, `onTenantResumed`).
 */
export function telemetryHooks(telemetry: Telemetry<OutboxInstruments>) {
  const log = (level: LogLevel, event: string, message: string, fields: LogFields) =>
    writeLog(telemetry.logger, level, `loyalty.outbox.${event}`, message, fields);
  const count = (outcome: string, event: EventRef, code?: string) => {
    const attributes = attributesOf({
      [ATTR.outcome]: outcome,
      [ATTR.tenant]: event.tenantId,
      [ATTR.destination]: event.envelope.eventType,
      [ATTR.errorType]: code,
    });
    telemetry.instruments()?.outcomes.add(1, attributes);
  };
  return {
    onDelivered({ event }: { event: EventRef }) {
      count('delivered', event);
    },
    onParked({ event, code }: { event: EventRef; code: string }) {
      count('parked', event, code);
      const message = `Parked ${event.envelope.eventType} after ${code}: fix the setup, then redeliver(eventId)`;
      log('warn', 'parked', message, { ...fieldsOf(event), code });
    },
    onDead({ event, code }: { event: EventRef; code: string }) {
      count('dead', event, code);
      const message = `Dead ${event.envelope.eventType} after ${code}: the event itself is refused; discard(eventId)`;
      log('error', 'dead', message, { ...fieldsOf(event), code });
    },
    onExpired({ event }: { event: EventRef }) {
      count('expired', event);
      const message = 'Expired: a retry could fall outside the 24-hour dedup window; redeliver or discard';
      log('warn', 'expired', message, fieldsOf(event));
    },
    onRetry({ event, code, delayMs }: { event: EventRef; code: string; delayMs: number }) {
      log('warn', 'retry', `Retrying after ${code}`, { ...fieldsOf(event), code, delayMs });
    },
    onTenantPaused({ tenantId, code }: { tenantId: string; code: string }) {
      log('warn', 'tenant_paused', `Tenant paused by ${code}; probing`, { tenantId, code });
    },
    onTenantStopped({ tenantId, reason }: { tenantId: string; reason: string }) {
      const message = `Tenant stopped (${reason}): nothing is sent until resumeTenant(tenantId)`;
      log('error', 'tenant_stopped', message, { tenantId, reason });
    },
    onTenantResumed({ tenantId }: { tenantId: string }) {
      log('info', 'tenant_resumed', 'Tenant resumed', { tenantId });
    },
  };
}
