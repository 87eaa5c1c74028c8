import type { TelemetryOptions } from '../telemetry/telemetry.js';
import type { ClientHooks } from './hooks.js';

/**
 * The retry budget: a token bucket per client. Every retry spends a token, every answer that is
 * not a retryable failure puts `refillPerSuccess` back (up to `capacity`). While the bucket is
 * empty, failures are not retried: a service that is down sees one attempt per call instead of
 * a storm, and callers get a retryable error at once.
 */
export interface RetryBudgetOptions {
  /**
   * Retries a client may make in a burst with no success in between.
   * @default 100
   */
  capacity?: number;
  /**
   * Tokens one success returns. `0.5` sustains one retry per two successes (a service failing a
   * third of requests at random still gets every event) but drains fast when nothing succeeds.
   * @default 0.5
   */
  refillPerSuccess?: number;
}

/** How `send`, `request` and the GETs retry transient failures (same body, fresh signature). */
export interface RetryOptions {
  /**
   * Attempts per call, the first included.
   * @default 6
   */
  maxAttempts?: number;
  /**
   * Cap of the first backoff; each later one doubles it (full jitter: a uniform pick from 0 to the cap).
   * @default 250
   */
  baseDelayMs?: number;
  /**
   * Largest backoff cap. A `Retry-After` from the service is a minimum and may exceed it.
   * @default 30000
   */
  maxDelayMs?: number;
  /**
   * No retry starts later than this after the call began. At most 23 hours, so that no retry
   * can land after the service's 24-hour dedup window of the first attempt has closed.
   * @default 600000
   */
  maxElapsedMs?: number;
  /**
   * The per-client retry budget, or `false` for none.
   * @default { capacity: 100, refillPerSuccess: 0.5 }
   */
  budget?: RetryBudgetOptions | false;
}

/** Paths of the partner endpoints, below `baseUrl`. The contract shows only the first. */
export interface ClientPaths {
  /** @default '/api/partner/v1/events' */
  events?: string;
  /** @default '/api/partner/v1/connection' */
  connection?: string;
  /** @default '/api/partner/v1/customers/lookup' */
  customerLookup?: string;
}

/** Options of `new LoyaltyClient(options)`; validated when the client is created. */
export interface LoyaltyClientOptions extends TelemetryOptions {
  /** The service's base address, e.g. `https://loyalty.example.com` (a path prefix is kept). */
  baseUrl: string;
  /** The API key issued at activation; it selects the tenant. */
  apiKey: string;
  /** The signing secret, or several while rotating (one `v1` per secret). */
  signingSecret: string | readonly string[];
  /**
   * Time one attempt may take, connection to last byte of the answer.
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * The most bytes of an answer's body the client reads. A longer answer (a wrong `baseUrl`
   * pointing at a file server, a hostile or broken proxy) is cut off: the connection is closed
   * and the call rejects with `LoyaltyNetworkError` `RESPONSE_TOO_LARGE`, without a retry. Every
   * answer of the contract is a few hundred bytes. From 1024 to 67108864 (64 MiB).
   * @default 1048576
   */
  maxResponseBytes?: number;
  /**
   * Retry settings, or `false` to send once.
   * @default { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 30000, maxElapsedMs: 600000, budget: { capacity: 100, refillPerSuccess: 0.5 } }
   */
  retry?: RetryOptions | false;
  /** A `fetch` to send with (edge, browser, kiosk webview, an in-process emulator). Default: the build's transport (undici with keep-alive on Node, `globalThis.fetch` elsewhere). */
  fetch?: typeof fetch;
  /** Observe requests, answers, retries and clock corrections. Secrets never reach a hook. */
  hooks?: ClientHooks;
  /** Endpoint paths below `baseUrl`. */
  paths?: ClientPaths;
  /**
   * Most sockets the Node transport opens to the service (ignored with `fetch`).
   * @default 16
   */
  connections?: number;
  /**
   * The partner's wall clock in epoch milliseconds; the client adds the offset it learns from
   * `401 SIGNATURE_EXPIRED`. For tests and simulations.
   * @default Date.now
   */
  now?: () => number;
}

/** Every default of `LoyaltyClient`, declared once; the TSDoc `@default` tags repeat these values. */
export const CLIENT_DEFAULTS = {
  timeoutMs: 10_000,
  maxResponseBytes: 1024 * 1024,
  retry: {
    maxAttempts: 6,
    baseDelayMs: 250,
    maxDelayMs: 30_000,
    maxElapsedMs: 600_000,
    budget: { capacity: 100, refillPerSuccess: 0.5 },
  },
  paths: {
    events: '/api/partner/v1/events',
    connection: '/api/partner/v1/connection',
    customerLookup: '/api/partner/v1/customers/lookup',
  },
  connections: 16,
  now: Date.now,
} as const satisfies {
  timeoutMs: number;
  maxResponseBytes: number;
  retry: Required<Omit<RetryOptions, 'budget'>> & { budget: Required<RetryBudgetOptions> };
  paths: Required<ClientPaths>;
  connections: number;
  now: () => number;
};

/** The largest `maxResponseBytes` a client accepts: 64 MiB. */
export const MAX_RESPONSE_BYTES_LIMIT = 64 * 1024 * 1024;

// Declared in contract/limits.ts; re-exported for outbox/outbox-options.ts, which imports it from here.
export { RETRY_WINDOW_MS } from '../contract/limits.js';
