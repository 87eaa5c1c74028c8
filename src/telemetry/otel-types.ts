/*
 * The parts of `@opentelemetry/api` the SDK calls, written out structurally. The package never
 * imports the API (an optional peer): its published types must compile without it, and a
 * `TracerProvider` or `MeterProvider` of any 1.x API fits these shapes
 * (test/telemetry/otel-types.test-d.ts checks that against the real API).
 */

/** A span or metric attribute value (arrays are not used by the SDK). */
export type AttributeValue = string | number | boolean;

/** Attributes as the SDK builds them; `undefined` values are left out before they are passed on. */
export type Attributes = Record<string, AttributeValue>;

/** W3C trace context of a span: what a link or a stored `traceparent` holds. */
export interface SpanContextLike {
  traceId: string;
  spanId: string;
  traceFlags: number;
  isRemote?: boolean;
}

/** An OpenTelemetry `Context`: immutable, keyed by symbols. */
export interface ContextLike {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): ContextLike;
  deleteValue(key: symbol): ContextLike;
}

/** The span methods the SDK calls. */
export interface SpanLike {
  spanContext(): SpanContextLike;
  setAttribute(key: string, value: AttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  updateName(name: string): unknown;
  end(endTime?: number): void;
}

/** Options of `tracer.startSpan` the SDK passes. */
export interface SpanOptionsLike {
  kind?: number;
  attributes?: Attributes;
  links?: { context: SpanContextLike }[];
}

/** An OpenTelemetry `Tracer`. */
export interface TracerLike {
  startSpan(name: string, options?: SpanOptionsLike, context?: ContextLike): SpanLike;
}

/**
 * An OpenTelemetry `TracerProvider` (`@opentelemetry/api` 1.x): the SDK's own, a `NodeTracerProvider`,
 * or `trace.getTracerProvider()`.
 *
 * @example
 * ```ts
 * import type { TracerProviderLike } from 'loyalty-partner-sdk';
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
 * const tracerProvider: TracerProviderLike = new BasicTracerProvider();
 * ```
 */
export interface TracerProviderLike {
  getTracer(name: string, version?: string): TracerLike;
}

/** A counter or an up-down counter. */
export interface CounterLike {
  add(value: number, attributes?: Attributes): void;
}

/** A histogram. */
export interface HistogramLike {
  record(value: number, attributes?: Attributes): void;
}

/** An observable instrument (gauge), observed in a batch callback. */
export type ObservableLike = object;

/** What a batch observable callback receives. */
export interface BatchObservableResultLike {
  observe(metric: ObservableLike, value: number, attributes?: Attributes): void;
}

/** Options of an instrument. */
export interface InstrumentOptionsLike {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/** An OpenTelemetry `Meter`. */
export interface MeterLike {
  createCounter(name: string, options?: InstrumentOptionsLike): CounterLike;
  createHistogram(name: string, options?: InstrumentOptionsLike): HistogramLike;
  createObservableGauge(name: string, options?: InstrumentOptionsLike): ObservableLike;
  addBatchObservableCallback(
    callback: (result: BatchObservableResultLike) => void | Promise<void>,
    observables: ObservableLike[],
  ): void;
  removeBatchObservableCallback(
    callback: (result: BatchObservableResultLike) => void | Promise<void>,
    observables: ObservableLike[],
  ): void;
}

/**
 * An OpenTelemetry `MeterProvider` (`@opentelemetry/api` 1.x): a `MeterProvider` of
 * `@opentelemetry/sdk-metrics`, or `metrics.getMeterProvider()`.
 *
 * @example
 * ```ts
 * import type { MeterProviderLike } from 'loyalty-partner-sdk';
 * import { MeterProvider } from '@opentelemetry/sdk-metrics';
 * const meterProvider: MeterProviderLike = new MeterProvider();
 * ```
 */
export interface MeterProviderLike {
  getMeter(name: string, version?: string): MeterLike;
}

/** `SpanKind` of the API, by value. */
export const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2, PRODUCER: 3, CONSUMER: 4 } as const;
/** `SpanStatusCode` of the API, by value. */
export const SPAN_STATUS = { UNSET: 0, OK: 1, ERROR: 2 } as const;
