import type { CounterLike, HistogramLike, MeterLike, ObservableLike } from './otel-types.js';
import { DURATION_BUCKETS } from './semconv.js';

type Kind = 'counter' | 'histogram' | 'gauge';

interface InstrumentSpec<K extends Kind = Kind> {
  kind: K;
  name: string;
  unit: string;
  description: string;
}

const spec =
  <K extends Kind>(kind: K) =>
  (name: string, unit: string, description: string): InstrumentSpec<K> => ({ kind, name, unit, description });
const counter = spec('counter');
/** Histograms measure durations in seconds, with the HTTP conventions' buckets. */
const histogram = spec('histogram');
/** Gauges are observed by their owner at each collection (`observeGauges`). */
const gauge = spec('gauge');

type InstrumentOf<K extends Kind> = K extends 'counter'
  ? CounterLike
  : K extends 'histogram'
    ? HistogramLike
    : ObservableLike;

/** What creates a component's instruments on a meter, for `Telemetry`. */
function instrumentTable<Table extends Record<string, InstrumentSpec>>(table: Table) {
  const create = (meter: MeterLike, { kind, name, unit, description }: InstrumentSpec) => {
    if (kind === 'counter') return meter.createCounter(name, { description, unit });
    if (kind === 'gauge') return meter.createObservableGauge(name, { description, unit });
    return meter.createHistogram(name, {
      description,
      unit,
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
  };
  return (meter: MeterLike) =>
    Object.fromEntries(Object.entries(table).map(([key, spec]) => [key, create(meter, spec)])) as {
      [Key in keyof Table]: InstrumentOf<Table[Key]['kind']>;
    };
}

/**
 * Every metric of the SDK, per component. docs/observability.md lists them; a rename here is a
 * breaking change for every dashboard built on them.
 */
export const INSTRUMENTS = {
  client: instrumentTable({
    attempts: counter(
      'loyalty.client.attempts',
      '{attempt}',
      'HTTP attempts to the Loyalty service, by status and error code',
    ),
    retries: counter(
      'loyalty.client.retries',
      '{retry}',
      'Attempts retried, by the error code that caused the retry',
    ),
    sendDuration: histogram(
      'loyalty.client.send.duration',
      's',
      'Time of one send, every attempt and backoff included',
    ),
  }),
  outbox: instrumentTable({
    outcomes: counter(
      'loyalty.outbox.outcomes',
      '{event}',
      'Events that left the queue of pending ones: delivered, parked, dead or expired',
    ),
    depth: gauge('loyalty.outbox.depth', '{event}', 'Events waiting to be delivered, per tenant'),
    oldestAge: gauge(
      'loyalty.outbox.oldest_age',
      's',
      'Age of the oldest event waiting to be delivered, per tenant',
    ),
    events: gauge(
      'loyalty.outbox.events',
      '{event}',
      'Events the outbox holds, per tenant and state (pending, parked, dead, expired)',
    ),
  }),
  receiver: instrumentTable({
    deliveries: counter(
      'loyalty.receiver.deliveries',
      '{delivery}',
      'Webhook deliveries by outcome (handled, duplicate, unhandled, in_progress, refused) and code',
    ),
    handlerDuration: histogram(
      'loyalty.receiver.handler.duration',
      's',
      'Time of the handler (or onUnhandled) of one event',
    ),
    /** Deferred mode: deliveries stored, and the outcome of each run from the inbox. */
    deferred: counter(
      'loyalty.receiver.deferred',
      '{delivery}',
      'Deferred receiver: deliveries stored, and runs from the inbox by outcome (handled, retried, dead, parked)',
    ),
    /** Deferred mode: stored deliveries per state, read from the inbox at each collection. */
    inboxDepth: gauge(
      'loyalty.receiver.inbox.depth',
      '{delivery}',
      'Deliveries stored in the receiver inbox, per state (pending, handled, dead, parked)',
    ),
  }),
};

/** The instruments of one component. */
export type InstrumentsOf<Component extends keyof typeof INSTRUMENTS> = ReturnType<
  (typeof INSTRUMENTS)[Component]
>;
