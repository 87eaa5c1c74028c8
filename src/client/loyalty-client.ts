import { envelopeOf } from '../contract/create-envelope.js';
import type { BatchEventType, InboundEventType } from '../contract/event-types.js';
import { redactor } from '../contract/redact.js';
import type { InboundEnvelope, PayloadInput } from '../contract/schemas/envelope.js';
import {
  assertInboundEventType,
  type PayloadSchemaOf,
  parseInboundEnvelope,
  parsePayloadWith,
  plainPayloadSchema,
} from '../contract/validate.js';
import { isSealedValid } from '../contract/validated-envelopes.js';
import { CallTelemetry, clientTelemetry } from '../telemetry/client-telemetry.js';
import { type ApiResult, type CustomerLookupBody, lookupBody } from './api-result.js';
import type { Call, ClientContext } from './attempt.js';
import * as calls from './calls.js';
import { ClockOffset } from './clock-offset.js';
import { LoyaltyClientClosedError } from './errors.js';
import { createFetchTransport } from './fetch-transport.js';
import { normalizeOptions } from './normalize-options.js';
import type { LoyaltyClientOptions } from './options.js';
import { type ClientPlatform, webPlatform } from './platform.js';
import { RetryBudget } from './retry-budget.js';
import { runCall } from './retry-loop.js';
import type { CallOptions, SendEnvelopeOptions, SendOptions, SendResult, SendTrace } from './send-types.js';
import { type BatchSender, runSyncBatch } from './sync-batch.js';
import type { BatchItem, SyncBatchOptions, SyncBatchSummary } from './sync-batch-options.js';
import { userAgent } from './user-agent.js';

/**
 * Posts signed events to the Loyalty service so that none is lost and none is credited twice:
 * each event is serialised once, and every attempt sends those bytes (same `eventId`, the dedup
 * key) under a fresh signature. Transient failures are retried with full-jitter backoff, decided
 * by the contract's error catalogue; a partner clock that is off is corrected from the service's
 * `Date`. On Node it sends through undici with keep-alive; elsewhere through `fetch`.
 *
 * @throws {LoyaltyValidationError} from the constructor: `INVALID_OPTIONS`, one issue per option at fault
 *
 * @example
 * ```ts
 * import { LoyaltyClient } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({
 *   baseUrl: 'https://loyalty.example.com',
 *   apiKey: process.env.LOYALTY_API_KEY ?? '',
 *   signingSecret: process.env.LOYALTY_SIGNING_SECRET ?? '',
 * });
 * const { eventId, attempts } = await client.send('BranchSynced', { externalBranchId: 'b-1', name: 'Olaya', isActive: true });
 * await client.close();
 * ```
 */
export class LoyaltyClient {
  /** The build's default transport, HMAC and runtime name; the Node entry's subclass overrides it. */
  protected static readonly platform: ClientPlatform = webPlatform;
  readonly #ctx: ClientContext;
  readonly #headers: Record<string, string>;
  readonly #events: calls.EventRoute;
  readonly #closer = new AbortController();
  readonly #payloadSchema: PayloadSchemaOf;
  #closing: Promise<void> | undefined;

  constructor(options: LoyaltyClientOptions) {
    const platform = (new.target as typeof LoyaltyClient).platform;
    const resolved = normalizeOptions(options);
    const settings = {
      connections: resolved.connections,
      timeoutMs: resolved.timeoutMs,
      maxResponseBytes: resolved.maxResponseBytes,
      closed: this.#closer.signal,
      logger: resolved.telemetry.logger,
    };
    this.#ctx = {
      options: resolved,
      transport: resolved.fetch
        ? createFetchTransport(settings, resolved.fetch)
        : platform.createTransport(settings),
      sign: platform.sign,
      clock: new ClockOffset(resolved.now),
      budget: resolved.budget && new RetryBudget(resolved.budget),
      telemetry: clientTelemetry(resolved.telemetry),
      closed: this.#closer.signal,
      redact: redactor([resolved.apiKey, ...resolved.secrets]),
    };
    this.#headers = calls.baseHeaders(resolved, userAgent(platform.runtime()));
    this.#events = calls.eventRoute(resolved, this.#headers);
    platform.allowManyListeners?.(this.#closer.signal);
    this.#payloadSchema = platform.payloadSchemaOf ?? plainPayloadSchema;
  }

  /** Service clock minus local clock (ms), as learned from `401 SIGNATURE_EXPIRED`; 0 until then. */
  get clockOffsetMs(): number {
    return this.#ctx.clock.offsetMs;
  }

  /**
   * Builds, validates and posts one event. Refuses locally, sending nothing, an unknown or
   * outbound type or an invalid payload (`LoyaltyValidationError`, with the path of every field
   * at fault). `occurredAt` defaults to now on the corrected clock.
   */
  send<T extends InboundEventType>(
    eventType: T,
    payload: PayloadInput<T>,
    options: SendOptions = {},
  ): Promise<SendResult> {
    // Not `async` itself: `#sendNew` already turns every throw into a rejection.
    return this.#sendNew(eventType, payload, options, undefined);
  }

  /**
   * Sends an envelope built earlier (by `createEnvelope`, or read back from a queue), keeping its
   * `eventId`, so the service counts it once however often it is sent within 24 hours.
   */
  async sendEnvelope(envelope: InboundEnvelope, options: SendEnvelopeOptions = {}): Promise<SendResult> {
    this.#assertOpen();
    // The outbox's envelopes were validated at enqueue and frozen since: parsed once, not twice.
    const parsed = isSealedValid(envelope) ? envelope : parseInboundEnvelope(envelope);
    const reference = calls.toEpochMs(options.firstAttemptAt ?? parsed.occurredAt, 'firstAttemptAt');
    const noRetry = options.noRetryCodes === undefined ? undefined : new Set(options.noRetryCodes);
    const call = calls.eventCall(this.#events, parsed, reference, noRetry);
    const result = await this.#run(call, options.signal, parsed, options.trace);
    return { eventId: parsed.eventId, ...result };
  }

  /** Unsigned `GET` of the connection path: confirms the API key; never starts webhook delivery. */
  async checkConnection(options: CallOptions = {}): Promise<ApiResult> {
    this.#assertOpen();
    return this.#run(calls.connectionCall(this.#ctx.options, this.#headers), options.signal);
  }

  /**
   * Looks a customer up by exactly one of `phone` and `customerId` (else `INVALID_REQUEST`,
   * nothing sent). The contract does not show the answer's fields: `body` is the JSON object
   * the service sent, its values `unknown` until checked ({@link CustomerLookupBody}).
   */
  async lookupCustomer(
    query: calls.LookupCustomerQuery,
    options: CallOptions = {},
  ): Promise<ApiResult<CustomerLookupBody>> {
    this.#assertOpen();
    const result = await this.#run(calls.lookupCall(this.#ctx.options, this.#headers, query), options.signal);
    return { ...result, body: lookupBody(result.body) };
  }

  /** A signed call with an `Idempotency-Key` that every retry repeats, for the planned synchronous endpoints. */
  async request(options: calls.RequestOptions): Promise<ApiResult> {
    this.#assertOpen();
    return this.#run(calls.genericCall(this.#ctx.options, this.#headers, options), options?.signal);
  }

  /**
   * Sends any number of entities as batch events of at most 500 items, validating every item
   * first (nothing is sent if one is wrong; the issue paths name it, `items.3.price`). While the
   * batch type is Planned, the items go as single-entity events (`fallbackToSingle`).
   */
  async syncBatch<T extends BatchEventType>(
    batchType: T,
    items: readonly BatchItem<T>[],
    options: SyncBatchOptions = {},
  ): Promise<SyncBatchSummary> {
    this.#assertOpen();
    const sender: BatchSender = {
      send: (type, payload, noRetry, signal) =>
        this.#sendNew(type, payload as PayloadInput<typeof type>, { signal }, noRetry),
    };
    return runSyncBatch(sender, batchType, items, options);
  }

  /**
   * Releases the sockets. Calls still in flight are cancelled and reject with
   * `LoyaltyClientClosedError`, and so does every later call. Safe to call twice.
   */
  close(): Promise<void> {
    if (!this.#closing) {
      this.#closer.abort(new LoyaltyClientClosedError());
      this.#closing = this.#ctx.transport.close();
    }
    return this.#closing;
  }

  #assertOpen(): void {
    if (this.#closer.signal.aborted) throw new LoyaltyClientClosedError();
  }

  async #sendNew<T extends InboundEventType>(
    eventType: T,
    payload: PayloadInput<T>,
    options: SendOptions,
    noRetry: ReadonlySet<string> | undefined,
  ): Promise<SendResult> {
    this.#assertOpen();
    assertInboundEventType(eventType);
    const now = this.#ctx.clock.now();
    const { eventId, occurredAt, correlationId, entityId } = options;
    // createEnvelope's steps, with `now` from the corrected clock.
    const envelope = envelopeOf(eventType, parsePayloadWith(this.#payloadSchema, eventType, payload), {
      eventId,
      occurredAt: occurredAt ?? new Date(now),
      correlationId,
      entityId,
    });
    // A caller's own eventId may have been sent before: its window opens at occurredAt at the latest.
    const reference = eventId === undefined ? now : calls.toEpochMs(envelope.occurredAt, 'occurredAt');
    const call = calls.eventCall(this.#events, envelope as InboundEnvelope, reference, noRetry);
    const result = await this.#run(call, options.signal, envelope);
    return { eventId: envelope.eventId, ...result };
  }

  #run(
    call: Call,
    signal: AbortSignal | undefined,
    event?: { eventType: string; correlationId?: string | undefined },
    trace?: SendTrace,
  ): Promise<ApiResult> {
    // One test when telemetry is off (no provider given or registered, no logger): nothing else.
    const telemetry = this.#ctx.telemetry.enabled()
      ? new CallTelemetry(this.#ctx.telemetry, {
          method: call.method,
          origin: this.#ctx.options.origin,
          template: call.path.split('?', 1)[0]!,
          eventId: call.eventId,
          eventType: event?.eventType,
          correlationId: event?.correlationId,
          tenantId: trace?.tenantId,
          linkTo: trace?.link,
        })
      : undefined;
    // Not linked into a signal of its own: each attempt's signal listens to the caller's and the
    // client's directly (abort.ts), so a call makes one AbortController, not two.
    return runCall(this.#ctx, call, signal ?? this.#closer.signal, telemetry);
  }
}
