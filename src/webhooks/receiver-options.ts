import { LoyaltyValidationError } from '../contract/errors.js';
import { isInboundEventType, isOutboundEventType, OUTBOUND_EVENT_TYPES } from '../contract/event-types.js';
import { mergeDefaults } from '../contract/merge-defaults.js';
import {
  functionOrAbsent,
  type OptionCheck,
  oneOf,
  optionIssues,
  throwIfInvalid,
  wholeNumber,
} from '../contract/options-check.js';
import { MAX_TIMER_MS } from '../internal/timers.js';
import { readSecrets, type Secrets } from '../signature/secrets.js';
import { DEFAULT_TOLERANCE_SECONDS } from '../signature/verify-options.js';
import { type ReceiverInstruments, receiverTelemetry } from '../telemetry/receiver-telemetry.js';
import { type Telemetry, type TelemetryOptions, telemetryIssues } from '../telemetry/telemetry.js';
import { type InboxStore, isDeferredInboxStore, isInboxStore } from './inbox.js';
import { memoryInbox } from './memory-inbox.js';
import type { ErrorContext, UnhandledContext, UnhandledEvent, WebhookHandlers } from './receiver-types.js';
import type { ReceiverFailure } from './webhook-error.js';

/**
 * The signing secrets of one tenant, looked up by the delivery's `X-TenantId` (one receiver
 * serves every merchant). Return `undefined` for a tenant you do not know: the delivery gets
 * 401 `INVALID_SIGNATURE`. A resolver that throws gets 503 `SECRETS_UNAVAILABLE` (retried).
 *
 * @example
 * ```ts
 * import type { SecretResolver } from 'loyalty-partner-sdk/webhooks';
 * const byTenant = new Map([['merchant-1', ['whsec_new', 'whsec_old']]]);
 * export const secrets: SecretResolver = (tenantId) => byTenant.get(tenantId);
 * ```
 */
export type SecretResolver = (tenantId: string) => Secrets | undefined | Promise<Secrets | undefined>;

/**
 * Options of `createReceiver`.
 *
 * @example
 * ```ts
 * import { createReceiver, type ReceiverOptions } from 'loyalty-partner-sdk/webhooks';
 * const options = {
 *   secrets: ['whsec_new', 'whsec_old'],
 *   toleranceSeconds: 300,
 *   handlers: { IntegrationStatusChanged: (event) => console.info(event.payload.status) },
 * } satisfies ReceiverOptions;
 * export const receiver = createReceiver(options);
 * ```
 */
export interface ReceiverOptions<Tx = undefined> extends TelemetryOptions {
  /**
   * One signing secret, several while rotating (a delivery signed with any of them passes), or a
   * resolver from the delivery's `X-TenantId` to that tenant's secrets.
   */
  secrets: Secrets | SecretResolver;
  /**
   * Largest accepted distance between the signature's `t` and now, in seconds, either way.
   * @default 300
   */
  toleranceSeconds?: number;
  /**
   * How long the `secrets` resolver may take, in milliseconds. A resolver that has not answered
   * by then gets the delivery 503 `SECRETS_UNAVAILABLE` (the service retries) and is reported to
   * `onError`. A synchronous resolver or fixed secrets are never timed.
   * @default 5_000
   */
  resolverTimeoutMs?: number;
  /**
   * How long a handler (or `onUnhandled`) may take, in milliseconds, before the delivery is
   * answered 503 `HANDLER_TIMEOUT` and reported to `onError`. The handler may still be running, so
   * its claim is kept until it settles or the inbox's lease ends: it must be shorter than the
   * inbox's `leaseMs`. With a transactional inbox it bounds the whole transaction.
   * @default 30_000
   */
  handlerTimeoutMs?: number;
  /**
   * Where handled event ids are recorded, so a redelivered event is not handled twice. With a
   * transactional inbox each handler runs inside the inbox's transaction, as `ctx.tx`.
   * @default memoryInbox() (one per receiver)
   */
  inbox?: InboxStore<Tx>;
  /** One handler per outbound event type; each receives the envelope typed by its `eventType`. */
  handlers: WebhookHandlers<Tx>;
  /**
   * Gets verified events this receiver has no handler for: event types or a `schemaVersion` newer
   * than this SDK, and known types without a handler. Deduplicated like a handler; if it throws,
   * the answer is 500 `HANDLER_FAILED`. Without it such events are acknowledged with 200.
   */
  onUnhandled?: (event: UnhandledEvent, ctx: UnhandledContext<Tx>) => unknown;
  /**
   * Told about every refused delivery and every failure, for logging and metrics. It cannot
   * change the answer: what it returns is ignored, and so is anything it throws or rejects with.
   */
  onError?: (error: ReceiverFailure, ctx: ErrorContext) => unknown;
  /**
   * Store each verified delivery in the `inbox` and answer 200 at once; the handlers run from the
   * inbox in whichever process calls `receiver.start()`, retried with backoff, then `dead`; what
   * this version cannot handle is `parked`. Needs a deferred inbox (docs/deferred-handling.md).
   * @default false
   */
  deferred?: boolean;
  /** With `deferred`: how often a failing handler runs, and the backoff (full jitter) between runs. */
  retry?: DeferredRetryOptions;
  /**
   * With `deferred`: how many handlers one process runs at once. A transactional run holds one of
   * the pool's connections throughout, so the default leaves most of the pool to receipts.
   * @default a quarter of the inbox's pool (at least 1) for a transactional inbox that tells its
   * pool size, 4 for one that does not, 16 otherwise
   */
  concurrency?: number;
}

/**
 * How a deferred receiver retries a handler that throws.
 *
 * @example
 * ```ts
 * import type { DeferredRetryOptions } from 'loyalty-partner-sdk/webhooks';
 * export const retry: DeferredRetryOptions = { maxAttempts: 12, baseDelayMs: 5_000, maxDelayMs: 3_600_000 };
 * ```
 */
export interface DeferredRetryOptions {
  /**
   * Runs of a delivery's handler before it is `dead` (the first run counts).
   * @default 10
   */
  maxAttempts?: number;
  /**
   * Cap of the wait before the first retry, in milliseconds; doubles each retry.
   * @default 1_000
   */
  baseDelayMs?: number;
  /**
   * Cap of any wait between runs, in milliseconds.
   * @default 600_000 (10 minutes)
   */
  maxDelayMs?: number;
}

/** The runner's default `concurrency` (see the option's `@default`). */
function defaultConcurrency(inbox: unknown): number {
  const store = inbox as { runHandled?: unknown; poolSize?: unknown } | undefined;
  if (typeof store?.runHandled !== 'function') return 16;
  const { poolSize } = store;
  return typeof poolSize === 'number' && poolSize > 0 ? Math.max(1, Math.floor(poolSize / 4)) : 4;
}

type Defaulted = 'toleranceSeconds' | 'resolverTimeoutMs' | 'handlerTimeoutMs' | 'deferred' | 'retry';

// The defaults of createReceiver, declared once (each is also in its option's @default tag).
const RECEIVER_DEFAULTS = {
  toleranceSeconds: DEFAULT_TOLERANCE_SECONDS,
  resolverTimeoutMs: 5_000,
  handlerTimeoutMs: 30_000,
  deferred: false,
  retry: { maxAttempts: 10, baseDelayMs: 1_000, maxDelayMs: 600_000 },
} as const satisfies Required<Pick<ReceiverOptions, Defaulted>>;

/** The options once checked, with every default applied. */
export interface NormalizedReceiverOptions
  extends Required<Pick<ReceiverOptions<unknown>, Exclude<Defaulted, 'retry'> | 'handlers' | 'concurrency'>>,
    Pick<ReceiverOptions<unknown>, 'onUnhandled' | 'onError'> {
  /** Synchronous for fixed secrets and for a resolver that is: no promise where none is needed. */
  secrets: (tenantId: string | undefined) => Secrets | undefined | Promise<Secrets | undefined>;
  inbox: InboxStore<unknown>;
  /** Spans, metrics and log lines of each delivery. */
  telemetry: Telemetry<ReceiverInstruments>;
  retry: Required<DeferredRetryOptions>;
}

/** Checks every option at once and reports every problem in one `INVALID_OPTIONS` error. */
export function normalizeReceiverOptions<Tx>(options: ReceiverOptions<Tx>): NormalizedReceiverOptions {
  const given = (typeof options === 'object' && options !== null ? options : {}) as Partial<
    ReceiverOptions<unknown>
  >;
  const { secrets, inbox, handlers, onUnhandled, onError } = given;
  const defaulted = mergeDefaults<Pick<ReceiverOptions, Defaulted>>(RECEIVER_DEFAULTS, given);
  const { toleranceSeconds, resolverTimeoutMs, handlerTimeoutMs, deferred } = defaulted;
  const retry = defaulted.retry as Required<DeferredRetryOptions>; // merged field by field
  const handlersOk = typeof handlers === 'object' && handlers !== null;
  const inboxOk = inbox === undefined || isInboxStore(inbox);
  // A retry given as anything but an object is kept as given by mergeDefaults: one issue for it.
  const retryOk = typeof retry === 'object' && retry !== null;
  const concurrency = given.concurrency ?? defaultConcurrency(inbox);
  const issues = optionIssues([
    [
      'secrets',
      typeof secrets === 'function' || readSecrets(secrets) !== undefined,
      'must be a non-empty string, a non-empty list of them, or a function (tenantId) => secrets',
    ],
    [
      'toleranceSeconds',
      toleranceSeconds >= 0 && toleranceSeconds < Number.POSITIVE_INFINITY,
      'must be a finite number of seconds >= 0',
    ],
    wholeNumber('resolverTimeoutMs', resolverTimeoutMs, 1, MAX_TIMER_MS, 'milliseconds'),
    wholeNumber('handlerTimeoutMs', handlerTimeoutMs, 1, MAX_TIMER_MS, 'milliseconds'),
    [
      'inbox',
      inboxOk,
      'must have begin, complete and release methods, and transaction if any (an InboxStore)',
    ],
    // Only immediate claims that hold a lease: a deferred run has no handlerTimeoutMs, and a
    // transactional claim is its transaction.
    inboxOk &&
      deferred !== true &&
      !inbox?.transaction &&
      typeof inbox?.leaseMs === 'number' && [
        'handlerTimeoutMs',
        handlerTimeoutMs < inbox.leaseMs,
        `must be shorter than the inbox's leaseMs (${inbox.leaseMs}), or a redelivery could take over the claim of a handler the receiver still waits for`,
      ],
    ['handlers', handlersOk, 'must be an object of handlers by event type ({} for none)'],
    ...(handlersOk ? Object.entries(handlers).map(([name, handler]) => checkHandler(name, handler)) : []),
    functionOrAbsent('onUnhandled', onUnhandled),
    functionOrAbsent('onError', onError),
    oneOf('deferred', deferred, [true, false]),
    deferred === true && [
      'inbox',
      inbox !== undefined,
      'is required with deferred: true (memoryInbox(), postgresInbox(), redisInbox())',
    ],
    deferred === true &&
      isInboxStore(inbox) && [
        'inbox',
        isDeferredInboxStore(inbox),
        'must be a store with the deferred methods (a DeferredInboxStore) with deferred: true',
      ],
    ['retry', retryOk, 'must be an object { maxAttempts, baseDelayMs, maxDelayMs }'],
    retryOk && wholeNumber('retry.maxAttempts', retry.maxAttempts, 1),
    retryOk && wholeNumber('retry.baseDelayMs', retry.baseDelayMs, 0, MAX_TIMER_MS, 'milliseconds'),
    retryOk && wholeNumber('retry.maxDelayMs', retry.maxDelayMs, 0, MAX_TIMER_MS, 'milliseconds'),
    wholeNumber('concurrency', concurrency, 1, 1_000, 'handlers'),
  ]);
  issues.push(...telemetryIssues(given));
  throwIfInvalid(
    issues,
    (all) => new LoyaltyValidationError('INVALID_OPTIONS', 'Invalid createReceiver options', all),
    { logger: given.logger, event: 'loyalty.receiver.misconfiguration' },
  );

  return {
    secrets: secretLookup(secrets as ReceiverOptions['secrets']),
    toleranceSeconds,
    resolverTimeoutMs,
    handlerTimeoutMs,
    inbox: inbox ?? memoryInbox(),
    // A copy, so handlers added to the caller's object later cannot bypass the checks above.
    handlers: { ...(handlers as WebhookHandlers<unknown>) },
    onUnhandled,
    onError,
    telemetry: receiverTelemetry(given),
    deferred,
    retry,
    concurrency,
  };
}

function checkHandler(name: string, handler: unknown): OptionCheck {
  const path = `handlers.${name}`;
  if (isInboundEventType(name)) {
    return [path, false, 'is an event partners send to the service; the service never delivers it'];
  }
  if (!isOutboundEventType(name)) {
    return [path, false, `is not an event type the service delivers (${OUTBOUND_EVENT_TYPES.join(', ')})`];
  }
  return functionOrAbsent(path, handler, 'must be a function (event, ctx) => unknown');
}

function secretLookup(secrets: ReceiverOptions['secrets']): NormalizedReceiverOptions['secrets'] {
  if (typeof secrets !== 'function') {
    const fixed = readSecrets(secrets);
    return () => fixed;
  }
  // Without X-TenantId there is no tenant to ask about: that is "no secret", never a guess.
  return (tenantId) => (tenantId === undefined || tenantId === '' ? undefined : secrets(tenantId));
}
