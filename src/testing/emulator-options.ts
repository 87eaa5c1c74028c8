import { EmulatorError } from './emulator-error.js';
import { HISTORY_LIMIT_DEFAULT } from './history.js';

/**
 * The partner deployment a merchant targets, and the one an emulator plays.
 */
export type Environment = 'testing' | 'production';

/**
 * Options of `createEmulator`. Every field is optional.
 *
 * @example
 * ```ts
 * import { createEmulator, type EmulatorOptions } from 'loyalty-partner-sdk/testing';
 * const options: EmulatorOptions = { clock: 'manual', startTime: new Date('2026-11-20T09:00:00Z'), deliveryTimeoutMs: 2_000 };
 * const emulator = createEmulator(options);
 * ```
 */
export interface EmulatorOptions {
  /**
   * `'system'` reads the real time; `'manual'` stands still until `emulator.advance(ms)`, so a
   * test walks the six-hour retry ladder, the 24-hour response cache or a stamp cooldown at once.
   * @default 'system'
   */
  clock?: 'system' | 'manual';
  /**
   * Where the manual clock starts.
   * @default the real time when the emulator is created
   */
  startTime?: Date | number;
  /**
   * Factor applied to every wait of the emulated service under the system clock: the gaps of the
   * webhook retry ladder and the expiry of pending redemptions (`0.0001` runs the 6-hour ladder in
   * about 2 s). The clock signatures are judged by keeps real time.
   * @default 1
   */
  timeScale?: number;
  /**
   * The deployment this emulator plays: keys of merchants of the other one get `INVALID_API_KEY`.
   * @default 'testing'
   */
  environment?: Environment;
  /** Receiver URL for merchants created without their own `receiverUrl`. */
  receiverUrl?: string;
  /**
   * How long a webhook delivery may wait for the receiver's answer before it counts as timed out
   * and is retried (the contract does not give a figure). Real milliseconds, whatever the clock.
   * @default 10000
   */
  deliveryTimeoutMs?: number;
  /**
   * How long a redemption stays pending before it expires, in emulated milliseconds.
   * @default 900000 (15 minutes)
   */
  redemptionTtlMs?: number;
  /**
   * How far the service's clock runs ahead (positive) or behind (negative) the emulator's clock,
   * in seconds: signatures are judged by it, `Date` headers and webhook timestamps carry it.
   * @default 0
   */
  clockSkewSeconds?: number;
  /**
   * The transport webhook deliveries use, e.g. a receiver's in-process `fetch`.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /**
   * How many of the newest items each record keeps: the request log, the deliveries that reached
   * an end state, each merchant's ledger and invoices, and the response cache (which also forgets
   * after 24 h). Memory stays flat however many events arrive; balances stay exact. A refund or a
   * replay of something forgotten is treated as the service treats one it never saw.
   * @default 50000
   */
  historyLimit?: number;
  /**
   * Milliseconds every partner request waits before it is answered, to feel a slow network.
   * Real milliseconds, whatever the clock. `emulator.setLatency(ms)` changes it while running.
   * @default 0
   */
  latencyMs?: number;
}

/**
 * Defaults of `EmulatorOptions`, declared once.
 *
 * @example
 * ```ts
 * import { EMULATOR_DEFAULTS } from 'loyalty-partner-sdk/testing';
 * console.log(EMULATOR_DEFAULTS.deliveryTimeoutMs); // 10000
 * ```
 */
export const EMULATOR_DEFAULTS = {
  clock: 'system',
  timeScale: 1,
  environment: 'testing',
  deliveryTimeoutMs: 10_000,
  redemptionTtlMs: 15 * 60_000,
  clockSkewSeconds: 0,
  historyLimit: HISTORY_LIMIT_DEFAULT,
  latencyMs: 0,
} as const satisfies Partial<EmulatorOptions>;

/** Options with every default applied and every value checked. */
export interface ResolvedEmulatorOptions {
  clock: 'system' | 'manual';
  startTime: number;
  timeScale: number;
  environment: Environment;
  receiverUrl: string | undefined;
  deliveryTimeoutMs: number;
  redemptionTtlMs: number;
  clockSkewSeconds: number;
  fetch: typeof fetch;
  historyLimit: number;
  latencyMs: number;
}

const invalid = (message: string) => new EmulatorError('INVALID_OPTIONS', `createEmulator: ${message}`);

/** Merges the defaults and refuses values that would make the emulator lie. */
export function resolveEmulatorOptions(options: EmulatorOptions = {}): ResolvedEmulatorOptions {
  const merged = { ...EMULATOR_DEFAULTS, ...options };
  if (merged.clock !== 'system' && merged.clock !== 'manual')
    throw invalid("clock must be 'system' or 'manual'");
  if (!(merged.timeScale > 0 && Number.isFinite(merged.timeScale))) throw invalid('timeScale must be > 0');
  if (merged.environment !== 'testing' && merged.environment !== 'production') {
    throw invalid("environment must be 'testing' or 'production'");
  }
  for (const key of ['deliveryTimeoutMs', 'redemptionTtlMs'] as const) {
    if (!(merged[key] > 0 && Number.isFinite(merged[key]))) throw invalid(`${key} must be a positive number`);
  }
  if (!(Number.isInteger(merged.historyLimit) && merged.historyLimit > 0))
    throw invalid('historyLimit must be a positive whole number');
  checkLatency(merged.latencyMs, invalid);
  if (!Number.isFinite(merged.clockSkewSeconds)) throw invalid('clockSkewSeconds must be a finite number');
  const startTime =
    options.startTime instanceof Date ? options.startTime.getTime() : (options.startTime ?? Date.now());
  if (!Number.isFinite(startTime)) throw invalid('startTime must be a valid Date or epoch milliseconds');
  if (merged.receiverUrl !== undefined) checkUrl(merged.receiverUrl, 'receiverUrl');
  const transport = options.fetch ?? globalThis.fetch;
  if (typeof transport !== 'function') throw invalid('no fetch available: pass options.fetch');
  return {
    clock: merged.clock,
    startTime,
    timeScale: merged.timeScale,
    environment: merged.environment,
    receiverUrl: merged.receiverUrl,
    deliveryTimeoutMs: merged.deliveryTimeoutMs,
    redemptionTtlMs: merged.redemptionTtlMs,
    clockSkewSeconds: merged.clockSkewSeconds,
    fetch: transport,
    historyLimit: merged.historyLimit,
    latencyMs: merged.latencyMs,
  };
}

/** Throws unless `ms` is a latency the emulator can wait: 0 to 60 000 milliseconds. */
export function checkLatency(ms: number, fail: (message: string) => Error): void {
  if (!(Number.isFinite(ms) && ms >= 0 && ms <= 60_000)) throw fail('latencyMs must be between 0 and 60000');
}

/** Throws `INVALID_OPTIONS` unless `url` is an absolute http(s) URL. */
export function checkUrl(url: string, name: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new EmulatorError('INVALID_OPTIONS', `${name} must be an absolute http(s) URL`, { cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new EmulatorError('INVALID_OPTIONS', `${name} must be an absolute http(s) URL`);
  }
}
