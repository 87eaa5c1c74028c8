import { mergeDefaults } from '../contract/merge-defaults.js';
import { type OptionCheck, oneOf, wholeNumber } from '../contract/options-check.js';
import { refuseOptions } from './emulator-error.js';

/** The partner deployment a merchant targets, and the one an emulator plays. */
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
   * an end state, and each merchant's ledger, invoices and cached answers (which are also
   * forgotten after 24 h). Memory stays flat however many events arrive; balances stay exact. A
   * refund or a replay of something forgotten is treated as the service treats one it never saw.
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

export const EMULATOR_DEFAULTS = {
  clock: 'system',
  timeScale: 1,
  environment: 'testing',
  deliveryTimeoutMs: 10_000,
  redemptionTtlMs: 15 * 60_000,
  clockSkewSeconds: 0,
  historyLimit: 50_000,
  latencyMs: 0,
} as const satisfies Partial<EmulatorOptions>;

/** Options with every default applied and every value checked. */
export type ResolvedEmulatorOptions = Required<Omit<EmulatorOptions, 'startTime' | 'receiverUrl'>> & {
  startTime: number;
  receiverUrl: string | undefined;
};

const positive = (path: string, value: number): OptionCheck => [
  path,
  value > 0 && Number.isFinite(value),
  'must be a finite number > 0',
];

/** Merges the defaults and refuses values that would make the emulator lie. */
export function resolveEmulatorOptions(options: EmulatorOptions = {}): ResolvedEmulatorOptions {
  const merged = mergeDefaults<EmulatorOptions>(EMULATOR_DEFAULTS as Required<EmulatorOptions>, options);
  const { startTime = Date.now(), fetch: transport = globalThis.fetch } = merged;
  const start = startTime instanceof Date ? startTime.getTime() : startTime;
  refuseOptions('createEmulator: ', [
    oneOf('clock', merged.clock, ['system', 'manual']),
    positive('timeScale', merged.timeScale),
    oneOf('environment', merged.environment, ['testing', 'production']),
    positive('deliveryTimeoutMs', merged.deliveryTimeoutMs),
    positive('redemptionTtlMs', merged.redemptionTtlMs),
    wholeNumber('historyLimit', merged.historyLimit, 1),
    latencyCheck(merged.latencyMs),
    ['clockSkewSeconds', Number.isFinite(merged.clockSkewSeconds), 'must be a finite number'],
    ['startTime', Number.isFinite(start), 'must be a valid Date or epoch milliseconds'],
    merged.receiverUrl !== undefined && urlCheck('receiverUrl', merged.receiverUrl),
    ['fetch', typeof transport === 'function', 'must be a function: no global fetch is available'],
  ]);
  return { ...merged, startTime: start, fetch: transport } as ResolvedEmulatorOptions;
}

const latencyCheck = (ms: number): OptionCheck => [
  'latencyMs',
  Number.isFinite(ms) && ms >= 0 && ms <= 60_000,
  'must be between 0 and 60000',
];

export function urlCheck(path: string, url: string): OptionCheck {
  const protocol = URL.canParse(url) ? new URL(url).protocol : '';
  return [path, protocol === 'http:' || protocol === 'https:', 'must be an absolute http(s) URL'];
}

/** Throws unless `ms` is a latency the emulator can wait: 0 to 60 000 milliseconds. */
export const checkLatency = (ms: number): void => refuseOptions('setLatency: ', [latencyCheck(ms)]);
