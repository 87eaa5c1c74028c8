import { RETRY_WINDOW_MS } from '../client/options.js';
import { type InboundEnvelope, LoyaltyValidationError } from '../contract/index.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import { optionIssues, throwIfInvalid, wholeNumber } from '../contract/options-check.js';
import { type OutboxInstruments, outboxTelemetry } from '../telemetry/outbox-telemetry.js';
import { type Telemetry, type TelemetryOptions, telemetryIssues } from '../telemetry/telemetry.js';
import { type OutboxHooks, withTelemetryHooks } from './outbox-hooks.js';
import type { OutboxStore } from './store.js';

/** What a successful send tells the outbox: the fields of the client's `SendResult` it uses. */
export interface OutboxSendResult {
  readonly status: number;
  readonly correlationId?: string | undefined;
  readonly attempts: number;
}

/**
 * The one thing the outbox needs from a client: `sendEnvelope`, which keeps the envelope's
 * `eventId`, applies the client's retry rules (no retry past 23 hours after `firstAttemptAt`,
 * epoch milliseconds) and throws `LoyaltyApiError`,
 * `LoyaltyNetworkError` or `LoyaltyValidationError`. A `LoyaltyClient` is one; a test may pass a
 * scripted object.
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * import type { OutboxSender } from 'loyalty-partner-sdk/outbox';
 * const sender: OutboxSender = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'k', signingSecret: 's' });
 * ```
 */
export interface OutboxSender {
  sendEnvelope(
    envelope: InboundEnvelope,
    options?: {
      signal?: AbortSignal;
      firstAttemptAt?: number;
      noRetryCodes?: Iterable<string>;
      /** The `create` span to link the `send` span to, and the tenant (see `SendEnvelopeOptions.trace`). */
      trace?: { link?: string | undefined; tenantId?: string | undefined };
    },
  ): Promise<OutboxSendResult>;
}

/** Options of `createOutbox` that do not depend on the tenancy. */
export interface OutboxCommonOptions<S extends OutboxStore<unknown> = OutboxStore<unknown>>
  extends TelemetryOptions {
  /**
   * Where events wait: `fileStore(dir)` to survive crashes, `memoryStore()` for tests, a shared
   * store (`postgresStore`) for many processes and the caller's transaction.
   */
  store: S;
  /**
   * Events of one tenant sent at the same time by this outbox. An event still waits for every
   * earlier event it must follow (same customer, invoice, coupon, ...; see "Causal order"); `1`
   * sends one event at a time in enqueue order. With a shared store (`postgresStore`) the cap is
   * per outbox, per tenant: N processes send up to N x `maxInFlight` of a tenant at once.
   * @default 16
   */
  maxInFlight?: number;
  /**
   * Tenants delivering at the same time (at most `concurrency × maxInFlight` sends at once).
   * @default 4
   */
  concurrency?: number;
  /**
   * Wait before the outbox tries an event again after the client gave up on a transient failure;
   * it doubles with each failure in a row (full jitter, the client's backoff), up to `maxRetryDelayMs`.
   * @default 1000
   */
  retryDelayMs?: number;
  /**
   * Longest wait between two tries of an event.
   * @default 300000 (5 min)
   */
  maxRetryDelayMs?: number;
  /**
   * Wait between two probes of a paused tenant (INTEGRATION_PAUSED, SUBSCRIPTION_LAPSED, ...).
   * @default 60000 (1 min)
   */
  probeIntervalMs?: number;
  /**
   * Age of an event's first attempt past which it is not tried again but `expired`: the service
   * remembers an `eventId` for 24 hours, and a retry after that could credit the event twice.
   * @default 82800000 (23 h)
   */
  expireAfterMs?: number;
  /**
   * Shared stores: how long a claimed event stays this process's (renewed while it is sent); a
   * process that dies leaves its claims to others after this long.
   * @default 60000
   */
  leaseMs?: number;
  /**
   * Shared stores: how often to look for events other processes enqueued or left.
   * @default 1000
   */
  pollIntervalMs?: number;
  /**
   * While a tenant's link is down it sends one event at a time, its probe, once per window at a
   * point of it drawn when the link went down; its queue drains when a probe is answered. A fleet
   * that lost the network together so comes back spread evenly over the window, not in the same
   * second. `0`: no probing, every event retries on its own backoff.
   * @default 25000
   */
  reconnectWindowMs?: number;
  /** Observers of every outcome; a hook that throws is ignored. */
  hooks?: OutboxHooks;
  /**
   * The wall clock (epoch ms) for expiry and recorded times; waits run on a monotonic clock.
   * @default Date.now
   */
  now?: () => number;
}

/** One client for every event: a single-tenant app. */
export interface SingleTenantOptions {
  /** The client of a single-tenant app; events without `tenantId` go to `defaultTenantId`. */
  client: OutboxSender;
  clientFor?: never;
  /**
   * The tenant of events enqueued without `tenantId`.
   * @default 'default'
   */
  defaultTenantId?: string;
}

/** One client per tenant: a multi-tenant app. Every `enqueue` names its `tenantId`. */
export interface MultiTenantOptions {
  client?: never;
  /** The client of each tenant; asked again when a tenant is resumed. */
  clientFor: (tenantId: string) => OutboxSender | Promise<OutboxSender>;
  defaultTenantId?: never;
}

/**
 * Options of `createOutbox`: exactly one of `client` (one tenant) or `clientFor` (one client per
 * tenant, and then `enqueue` requires `tenantId`), checked by the compiler.
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * import { fileStore, type OutboxOptions } from 'loyalty-partner-sdk/outbox';
 * const options: OutboxOptions = {
 *   clientFor: (tenantId) => new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: `key-${tenantId}`, signingSecret: 's' }),
 *   store: fileStore('/var/lib/pos/loyalty-outbox'),
 *   concurrency: 8,
 * };
 * ```
 */
export type OutboxOptions<S extends OutboxStore<unknown> = OutboxStore<unknown>> = OutboxCommonOptions<S> &
  (SingleTenantOptions | MultiTenantOptions);

/** Every default of `createOutbox`, declared once; the `@default` tags repeat these values. */
export const OUTBOX_DEFAULTS = {
  maxInFlight: 16,
  concurrency: 4,
  defaultTenantId: 'default',
  retryDelayMs: 1_000,
  maxRetryDelayMs: 300_000,
  probeIntervalMs: 60_000,
  expireAfterMs: RETRY_WINDOW_MS,
  leaseMs: 60_000,
  pollIntervalMs: 1_000,
  reconnectWindowMs: 25_000,
  now: Date.now,
} as const;

type Numeric = Exclude<keyof typeof OUTBOX_DEFAULTS, 'defaultTenantId' | 'now'>;

/** The least value of each numeric option (the ones ending in `Ms` are milliseconds). */
const MINIMUMS: Readonly<Record<Numeric, number>> = {
  maxInFlight: 1,
  concurrency: 1,
  retryDelayMs: 0,
  maxRetryDelayMs: 0,
  probeIntervalMs: 0,
  expireAfterMs: 0,
  leaseMs: 1,
  pollIntervalMs: 1,
  reconnectWindowMs: 0,
};

/** Options with every default applied, checked once when the outbox is created. */
export interface NormalizedOutboxOptions extends Record<Numeric, number> {
  readonly store: OutboxStore<unknown>;
  readonly hooks: OutboxHooks;
  /** Spans, metrics and log lines; its hooks are already part of `hooks`. */
  readonly telemetry: Telemetry<OutboxInstruments>;
  readonly now: () => number;
  /** Monotonic milliseconds for waits (`performance.now`). */
  readonly monotonic: () => number;
  readonly senderFor: (tenantId: string) => OutboxSender | Promise<OutboxSender>;
  /** `undefined` with `clientFor`: every `enqueue` then names its tenant. */
  readonly defaultTenantId: string | undefined;
}

export function normalizeOutboxOptions(input: OutboxOptions): NormalizedOutboxOptions {
  const options = mergeDefaults(OUTBOX_DEFAULTS, input as Partial<typeof OUTBOX_DEFAULTS>) as Partial<
    OutboxCommonOptions & { client: OutboxSender; clientFor: MultiTenantOptions['clientFor'] }
  > &
    typeof OUTBOX_DEFAULTS;
  const { client, clientFor, store } = options;
  const numeric = Object.keys(MINIMUMS) as Numeric[];
  const kind = (store as { kind?: unknown } | undefined)?.kind;
  const issues = optionIssues([
    [
      'client',
      (client === undefined) !== (clientFor === undefined),
      'give exactly one of client and clientFor',
    ],
    [
      'store',
      typeof store?.append === 'function' && (kind === 'local' || kind === 'shared'),
      'must be a store such as fileStore(dir) or memoryStore()',
    ],
    ...numeric.map((name) =>
      wholeNumber(
        name,
        options[name],
        MINIMUMS[name],
        undefined,
        name.endsWith('Ms') ? 'milliseconds' : undefined,
      ),
    ),
  ]);
  issues.push(...telemetryIssues(options));
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid outbox options', all),
    { logger: options.logger, event: 'loyalty.outbox.misconfiguration' },
  );
  const telemetry = outboxTelemetry(options);
  return {
    ...(Object.fromEntries(numeric.map((name) => [name, options[name]])) as Record<Numeric, number>),
    store: store!,
    hooks: withTelemetryHooks(options.hooks ?? {}, telemetry),
    telemetry,
    now: options.now,
    monotonic: () => performance.now(),
    senderFor: clientFor ?? (() => client!),
    defaultTenantId: client ? options.defaultTenantId : undefined,
  };
}
