import { ERROR_CODES, type ErrorCode } from '../contract/index.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { refuseOptions } from './emulator-error.js';

/** The 503 codes of the catalogue, each of which a fault can answer with. */
export type ServiceUnavailableCode = {
  [K in ErrorCode]: (typeof ERROR_CODES)[K]['status'] extends 503 ? K : never;
}[ErrorCode];

/**
 * What an injected fault does to a request:
 * - a 503 code of the catalogue (`CONCURRENCY_CONFLICT`, `SUBSCRIPTION_LAPSED`, ...): that answer;
 * - `rate-limited`: 429 with `Retry-After: 1`;
 * - `reset`: the connection is dropped without an answer;
 * - `timeout`: no answer until the caller gives up;
 * - `clock-skew`: the request's signature is judged by a clock 10 minutes ahead, so a valid
 *   signature gets 401 `SIGNATURE_EXPIRED` (the `Date` header keeps the true time); POST /events
 *   only, the unsigned GETs are answered as usual;
 * - `timeout-after-processing`: the event is processed and cached, then no answer comes, so the
 *   retry gets the cached response replayed.
 *
 * @example
 * ```ts
 * import { createEmulator, type FaultKind } from 'loyalty-partner-sdk/testing';
 * const kinds: FaultKind[] = ['CONCURRENCY_CONFLICT', 'rate-limited', 'reset', 'timeout'];
 * createEmulator().injectFaults({ rate: 0.2, kinds, seed: 42 });
 * ```
 */
export type FaultKind =
  | ServiceUnavailableCode
  | 'rate-limited'
  | 'reset'
  | 'timeout'
  | 'clock-skew'
  | 'timeout-after-processing';

/** The endpoints faults can hit. */
export type FaultEndpoint = 'events' | 'connection' | 'customer-lookup';

/**
 * Options of `emulator.injectFaults`.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * emulator.injectFaults({ kinds: ['timeout-after-processing'], times: 1 }); // exactly one, then none
 * ```
 */
export interface FaultOptions {
  /** The kinds to draw from, uniformly. */
  kinds: readonly FaultKind[];
  /**
   * Probability in [0, 1] that a request is faulted.
   * @default 1
   */
  rate?: number;
  /**
   * Seed of the pseudo-random draws: the same seed and the same requests give the same faults.
   * @default 1
   */
  seed?: number;
  /**
   * How many faults to inject before stopping.
   * @default Infinity
   */
  times?: number;
  /**
   * Which endpoints are eligible.
   * @default ['events', 'connection', 'customer-lookup']
   */
  endpoints?: readonly FaultEndpoint[];
}

export const FAULT_DEFAULTS = {
  rate: 1,
  seed: 1,
  times: Number.POSITIVE_INFINITY,
  endpoints: ['events', 'connection', 'customer-lookup'],
} as const satisfies Omit<Required<FaultOptions>, 'kinds'>;

/** Clock skew of the `clock-skew` fault, beyond the 300 s tolerance in either direction. */
export const FAULT_CLOCK_SKEW_SECONDS = 600;

const serviceUnavailable = new Set<string>(
  Object.entries(ERROR_CODES)
    .filter(([, info]) => info.status === 503)
    .map(([code]) => code),
);
const OTHER_KINDS = ['rate-limited', 'reset', 'timeout', 'clock-skew', 'timeout-after-processing'];
const KINDS = new Set<string>([...serviceUnavailable, ...OTHER_KINDS]);

export const isServiceUnavailableKind = (kind: FaultKind): kind is ServiceUnavailableCode =>
  serviceUnavailable.has(kind);

/** mulberry32: tiny, fast and good enough to make fault sequences reproducible from a seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws the fault, if any, of each eligible request. */
export class FaultInjector {
  #plan: (Required<FaultOptions> & { random: () => number; injected: number }) | undefined;

  configure(options: FaultOptions): void {
    const merged = mergeDefaults<FaultOptions>({ ...FAULT_DEFAULTS, kinds: [] }, options);
    const unknown = Array.from(merged.kinds).find((kind) => !KINDS.has(kind));
    refuseOptions('injectFaults: ', [
      ['rate', merged.rate >= 0 && merged.rate <= 1, 'must be in [0, 1]'],
      ['kinds', merged.kinds.length > 0, 'must not be empty'],
      ['kinds', unknown === undefined, `has an unknown fault kind ${JSON.stringify(unknown)}`],
      ['times', merged.times >= 0, 'must be >= 0'],
    ]);
    this.#plan = { ...merged, random: seeded(merged.seed), injected: 0 };
  }

  clear(): void {
    this.#plan = undefined;
  }

  draw(endpoint: FaultEndpoint): FaultKind | undefined {
    const plan = this.#plan;
    if (!plan || plan.injected >= plan.times || !plan.endpoints.includes(endpoint)) return undefined;
    if (plan.random() >= plan.rate) return undefined;
    const kind = plan.kinds[Math.floor(plan.random() * plan.kinds.length)];
    if (kind !== undefined) plan.injected += 1;
    return kind;
  }
}
