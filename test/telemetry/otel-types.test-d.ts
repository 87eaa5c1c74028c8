// Compile-only: the structural types the SDK declares accept the real providers of
// `@opentelemetry/api` 1.x and of the SDK packages, so users pass theirs without a cast.
import { metrics, trace } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { Logger } from 'loyalty-partner-sdk';
import type { MeterProviderLike, TracerLike, TracerProviderLike } from '../../src/telemetry/otel-types.js';
import type { TelemetryOptions } from '../../src/telemetry/telemetry.js';

export const fromApi: TelemetryOptions = {
  tracerProvider: trace.getTracerProvider(),
  meterProvider: metrics.getMeterProvider(),
  logger: console,
};
export const fromSdk: [TracerProviderLike, TracerProviderLike, MeterProviderLike] = [
  new BasicTracerProvider(),
  new NodeTracerProvider(),
  new MeterProvider(),
];
export const tracer: TracerLike = trace.getTracer('x');

/** pino's and winston's method shapes: overloads with an object or a message first. */
declare const pinoLike: {
  debug(obj: object, msg?: string, ...args: unknown[]): void;
  debug(msg: string, ...args: unknown[]): void;
  info(obj: object, msg?: string, ...args: unknown[]): void;
  info(msg: string, ...args: unknown[]): void;
  warn(obj: object, msg?: string, ...args: unknown[]): void;
  warn(msg: string, ...args: unknown[]): void;
  error(obj: object, msg?: string, ...args: unknown[]): void;
  error(msg: string, ...args: unknown[]): void;
};
export const pino: Logger = pinoLike;

// @ts-expect-error: a logger needs all four methods
export const partial: Logger = { info: () => undefined };
