import { RETRY_WINDOW_MS } from '../client/options.js';
import { type InboundEnvelope, LoyaltyValidationError } from '../contract/index.js';
import type { OutboxHooks } from './outbox-hooks.js';
import type { LocalStore, OutboxStore } from './store.js';

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
    options?: { signal?: AbortSignal; firstAttemptAt?: number; noRetryCodes?: Iterable<string> },
  ): Promise<OutboxSendResult>;
}

/**
 * Options of `createOutbox`: give `client` (one tenant) or `clientFor` (one client per tenant).
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
export interface OutboxOptions {
  /** The client of a single-tenant app; events without `tenantId` go to `defaultTenantId`. */
  client?: OutboxSender;
  /** The client of each tenant, for multi-tenant apps; asked again when a tenant is resumed. */
  clientFor?: (tenantId: string) => OutboxSender | Promise<OutboxSender>;
  /** Where events wait: `fileStore(dir)` to survive crashes, `memoryStore()` for tests. */
  store: OutboxStore;
  /**
   * Tenants delivering at the same time. Within a tenant, one event at a time, in order.
   * @default 4
   */
  concurrency?: number;
  /**
   * The tenant of events enqueued without `tenantId` when a single `client` is given.
   * @default 'default'
   */
  defaultTenantId?: string;
  /**
   * Wait before the outbox tries an event again after the client gave up on a transient failure;
   * it doubles with each failure in a row (with jitter), up to `maxRetryDelayMs`.
   * @default 1000
   */
  retryDelayMs?: number;
  /**
   * Longest wait between two tries of a tenant's head event.
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
  /** Observers of every outcome; a hook that throws is ignored. */
  hooks?: OutboxHooks;
  /**
   * The clock, in epoch milliseconds, for expiry and for the times the outbox records.
   * @default Date.now
   */
  now?: () => number;
}

/**
 * Every default of `createOutbox`, declared once; the `@default` tags repeat these values.
 *
 * @example
 * ```ts
 * import { OUTBOX_DEFAULTS } from 'loyalty-partner-sdk/outbox';
 * console.log(OUTBOX_DEFAULTS.expireAfterMs / 3_600_000); // 23 (hours)
 * ```
 */
export const OUTBOX_DEFAULTS = {
  concurrency: 4,
  defaultTenantId: 'default',
  retryDelayMs: 1_000,
  maxRetryDelayMs: 300_000,
  probeIntervalMs: 60_000,
  expireAfterMs: RETRY_WINDOW_MS,
  now: Date.now,
} as const satisfies Required<Omit<OutboxOptions, 'client' | 'clientFor' | 'store' | 'hooks'>>;

/** Options with every default applied, checked once when the outbox is created. */
export type NormalisedOutboxOptions = Required<
  Omit<OutboxOptions, 'client' | 'clientFor' | 'defaultTenantId' | 'store'>
> & {
  readonly store: LocalStore;
  readonly senderFor: (tenantId: string) => OutboxSender | Promise<OutboxSender>;
  /** `undefined` with `clientFor`: every `enqueue` then names its tenant. */
  readonly defaultTenantId: string | undefined;
};

export function normaliseOutboxOptions(options: OutboxOptions): NormalisedOutboxOptions {
  const issues: { path: string; message: string }[] = [];
  const { client, clientFor } = options;
  if ((client === undefined) === (clientFor === undefined)) {
    issues.push({ path: 'client', message: 'give exactly one of client and clientFor' });
  }
  if (typeof options.store?.append !== 'function' || options.store.kind !== 'local') {
    issues.push({ path: 'store', message: 'must be a store such as fileStore(dir) or memoryStore()' });
  }
  const merged = {
    concurrency: options.concurrency ?? OUTBOX_DEFAULTS.concurrency,
    retryDelayMs: options.retryDelayMs ?? OUTBOX_DEFAULTS.retryDelayMs,
    maxRetryDelayMs: options.maxRetryDelayMs ?? OUTBOX_DEFAULTS.maxRetryDelayMs,
    probeIntervalMs: options.probeIntervalMs ?? OUTBOX_DEFAULTS.probeIntervalMs,
    expireAfterMs: options.expireAfterMs ?? OUTBOX_DEFAULTS.expireAfterMs,
  };
  for (const [name, value] of Object.entries(merged)) {
    if (!Number.isSafeInteger(value) || value < (name === 'concurrency' ? 1 : 0)) {
      issues.push({ path: name, message: 'must be a non-negative integer (concurrency at least 1)' });
    }
  }
  if (issues.length > 0)
    throw new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid outbox options', issues);
  return {
    ...merged,
    store: options.store as LocalStore,
    hooks: options.hooks ?? {},
    now: options.now ?? OUTBOX_DEFAULTS.now,
    senderFor: clientFor ?? (() => client!),
    defaultTenantId: client ? (options.defaultTenantId ?? OUTBOX_DEFAULTS.defaultTenantId) : undefined,
  };
}
