import type { ContextLike, MeterProviderLike, SpanLike, TracerProviderLike } from './otel-types.js';

/**
 * Where `@opentelemetry/api` 1.x keeps its registered global providers: one `globalThis` slot
 * shared by every copy of the API. Reading it finds them without importing the API; when nothing
 * was registered the slot is empty and nothing is recorded.
 */
const API_KEY = Symbol.for('opentelemetry.js.api.1');

/** The API's span key: `createContextKey` uses `Symbol.for`, so every API copy shares it. */
export const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

interface ContextManagerLike {
  active(): ContextLike;
  with<A extends unknown[], R>(context: ContextLike, fn: (...args: A) => R, thisArg?: unknown, ...args: A): R;
}

interface GlobalApi {
  trace?: TracerProviderLike;
  metrics?: MeterProviderLike;
  context?: ContextManagerLike;
}

const registry = (): GlobalApi | undefined => (globalThis as Record<symbol, GlobalApi | undefined>)[API_KEY];

/** The registered global tracer provider, if any. */
export const globalTracerProvider = (): TracerProviderLike | undefined => registry()?.trace;

/** The registered global meter provider, if any. */
export const globalMeterProvider = (): MeterProviderLike | undefined => registry()?.metrics;

/** A context for when no context manager is registered: the API's `ROOT_CONTEXT`, rebuilt. */
class PlainContext implements ContextLike {
  constructor(private readonly values: ReadonlyMap<symbol, unknown> = new Map()) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): ContextLike {
    return new PlainContext(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): ContextLike {
    const values = new Map(this.values);
    values.delete(key);
    return new PlainContext(values);
  }
}

const ROOT = new PlainContext();

/** The caller's active context (else an empty one) with `span` as its span: the parent of new spans. */
export const contextWith = (span: SpanLike): ContextLike =>
  (registry()?.context?.active() ?? ROOT).setValue(SPAN_KEY, span);

/**
 * Runs `fn` with `span` active, so that the spans a user's handler starts become its children.
 * Without a registered context manager there is no active context to set: `fn` just runs.
 */
export function runWithSpan<R>(span: SpanLike, fn: () => R): R {
  const manager = registry()?.context;
  return manager ? manager.with(manager.active().setValue(SPAN_KEY, span), fn) : fn();
}
