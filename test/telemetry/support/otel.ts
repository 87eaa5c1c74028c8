import { type Attributes, context } from '@opentelemetry/api';
import {
  AggregationTemporality,
  type DataPoint,
  type Histogram,
  MeterProvider,
  MetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach } from 'vitest';
import { type ScriptedServer, startScriptedServer } from '../../client/support/scripted-server.js';

/** A metric reader a test collects from by hand: no timer, nothing exported on its own. */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One data point as a test reads it: its attributes and its value (a histogram's count and sum). */
export interface Point {
  attributes: Attributes;
  value: number | { count: number; sum: number };
}

/**
 * The OpenTelemetry SDK, in memory: a tracer provider whose spans land in an
 * `InMemorySpanExporter`, and a meter provider read by `metrics()`.
 */
export function inMemoryOtel() {
  const exporter = new InMemorySpanExporter();
  const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const reader = new CollectingReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  return {
    tracerProvider,
    meterProvider,
    spans: (): ReadableSpan[] => exporter.getFinishedSpans(),
    /** Every metric collected now, by name. */
    async metrics(): Promise<Map<string, Point[]>> {
      const { resourceMetrics, errors } = await reader.collect();
      if (errors.length) throw errors[0];
      const byName = new Map<string, Point[]>();
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          const points = (metric.dataPoints as DataPoint<number | Histogram>[]).map((point) => ({
            attributes: point.attributes,
            value:
              typeof point.value === 'number'
                ? point.value
                : { count: point.value.count, sum: point.value.sum ?? 0 },
          }));
          byName.set(metric.descriptor.name, points);
        }
      }
      return byName;
    },
    async shutdown(): Promise<void> {
      await tracerProvider.shutdown();
      await meterProvider.shutdown();
    },
  };
}

/** A logger that keeps every line it is given. */
export function memoryLogger() {
  const lines: { level: string; line: Record<string, unknown> }[] = [];
  const at = (level: string) => (line: Record<string, unknown>) => lines.push({ level, line });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/**
 * For each test of the file: a fresh in-memory OpenTelemetry, shut down after it with the global
 * context manager a test may have registered.
 */
export function otelPerTest(): { otel: ReturnType<typeof inMemoryOtel> } {
  const env = {} as { otel: ReturnType<typeof inMemoryOtel> };
  beforeEach(() => {
    env.otel = inMemoryOtel();
  });
  afterEach(async () => {
    await env.otel.shutdown();
    context.disable();
  });
  return env;
}

/** For each test of the file: a fresh scripted Loyalty service and in-memory OpenTelemetry, closed after it. */
export function serverAndOtelPerTest(): { server: ScriptedServer; otel: ReturnType<typeof inMemoryOtel> } {
  const env = {} as { server: ScriptedServer; otel: ReturnType<typeof inMemoryOtel> };
  beforeEach(async () => {
    env.server = await startScriptedServer();
    env.otel = inMemoryOtel();
  });
  afterEach(async () => {
    await env.server.close();
    await env.otel.shutdown();
  });
  return env;
}
