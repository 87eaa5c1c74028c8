import { isLogger, type Logger } from '../contract/logger.js';
import { SDK_VERSION } from '../contract/sdk-version.js';
import { globalMeterProvider, globalTracerProvider } from './global-otel.js';
import type {
  BatchObservableResultLike,
  MeterLike,
  MeterProviderLike,
  ObservableLike,
  TracerLike,
  TracerProviderLike,
} from './otel-types.js';

/**
 * The observability options of `new LoyaltyClient`, `createReceiver` and `createOutbox`.
 * OpenTelemetry through `@opentelemetry/api` (an optional peer dependency): without a provider
 * here and without a registered global one, nothing is recorded.
 *
 * @example
 * ```ts
 * import type { TelemetryOptions } from 'loyalty-partner-sdk';
 * import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
 * const telemetry: TelemetryOptions = { tracerProvider: new BasicTracerProvider(), logger: console };
 * ```
 */
export interface TelemetryOptions {
  /** Where spans go. Default: the global tracer provider, when one is registered. */
  tracerProvider?: TracerProviderLike;
  /** Where metrics go. Default: the global meter provider, when one is registered. */
  meterProvider?: MeterProviderLike;
  /** One structured line per retry, park, tenant stop, refusal and misconfiguration. */
  logger?: Logger;
}

/** The instrumentation scope of every tracer and meter of the SDK. */
export const INSTRUMENTATION_SCOPE = 'loyalty-partner-sdk';

/**
 * One component's tracer, meter and logger. The providers are looked up on every use, not
 * once: a global provider registered after the client was created is still found. The lookup
 * is one property read; the tracer and meter are cached per provider.
 */
export class Telemetry<Instruments = undefined> {
  readonly logger: Logger | undefined;
  #tracerProvider: TracerProviderLike | undefined;
  #tracer: TracerLike | undefined;
  #meterProvider: MeterProviderLike | undefined;
  #instruments: Instruments | undefined;

  constructor(
    private readonly options: TelemetryOptions,
    /** Creates the component's instruments on a meter, once per meter provider. */
    private readonly instrumentsOf?: (meter: MeterLike) => Instruments,
  ) {
    this.logger = options.logger;
  }

  /** The tracer to record spans with, or `undefined` when tracing is off. */
  tracer(): TracerLike | undefined {
    const provider = this.options.tracerProvider ?? globalTracerProvider();
    if (provider !== this.#tracerProvider) {
      this.#tracer = provider?.getTracer(INSTRUMENTATION_SCOPE, SDK_VERSION);
      this.#tracerProvider = provider;
    }
    return this.#tracer;
  }

  /** The component's instruments, or `undefined` when metrics are off. */
  instruments(): Instruments | undefined {
    const provider = this.options.meterProvider ?? globalMeterProvider();
    if (provider === undefined || !this.instrumentsOf) return undefined;
    if (provider !== this.#meterProvider) {
      this.#instruments = this.instrumentsOf(provider.getMeter(INSTRUMENTATION_SCOPE, SDK_VERSION));
      this.#meterProvider = provider;
    }
    return this.#instruments;
  }

  /** The meter itself, for observable instruments registered by their owner. */
  meter(): MeterLike | undefined {
    const provider = this.options.meterProvider ?? globalMeterProvider();
    return provider?.getMeter(INSTRUMENTATION_SCOPE, SDK_VERSION);
  }

  /** True when any of traces, metrics or logs is on: the one test callers make on every call. */
  enabled(): boolean {
    return this.logger !== undefined || this.tracer() !== undefined || this.instruments() !== undefined;
  }
}

/**
 * Registers gauges with the meter in use now; returns what unregisters them (at `close`). `read`
 * is called at each collection, never between; OpenTelemetry awaits it, and a store that cannot
 * answer reports nothing this time rather than failing the collection.
 */
export function observeGauges<R>(
  telemetry: Telemetry<unknown>,
  observables: ObservableLike[],
  read: () => R | Promise<R>,
  report: (result: BatchObservableResultLike, reading: R) => void,
): () => void {
  const meter = telemetry.meter();
  if (!meter) return () => undefined;
  const callback = async (result: BatchObservableResultLike) => {
    const reading = await Promise.resolve()
      .then(read)
      .then(
        (value) => ({ value }),
        () => undefined,
      );
    if (reading) report(result, reading.value);
  };
  meter.addBatchObservableCallback(callback, observables);
  return () => meter.removeBatchObservableCallback(callback, observables);
}

const hasMethod = (value: unknown, method: string): boolean =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Record<string, unknown>)[method] === 'function';

/**
 * The problems of the three options, for the `INVALID_OPTIONS` error of a component whose
 * options are checked by hand (receiver, outbox). Providers are checked by shape: the API is
 * never imported.
 */
export function telemetryIssues(options: {
  tracerProvider?: unknown;
  meterProvider?: unknown;
  logger?: unknown;
}): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const { tracerProvider, meterProvider, logger } = options;
  if (tracerProvider !== undefined && !hasMethod(tracerProvider, 'getTracer')) {
    issues.push({
      path: 'tracerProvider',
      message: 'must be a TracerProvider of @opentelemetry/api (with getTracer)',
    });
  }
  if (meterProvider !== undefined && !hasMethod(meterProvider, 'getMeter')) {
    issues.push({
      path: 'meterProvider',
      message: 'must be a MeterProvider of @opentelemetry/api (with getMeter)',
    });
  }
  if (logger !== undefined && !isLogger(logger)) {
    issues.push({ path: 'logger', message: 'must be an object with debug, info, warn and error methods' });
  }
  return issues;
}
