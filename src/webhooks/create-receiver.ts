import { LoyaltyValidationError } from '../contract/errors.js';
import { countDeferred, DeliveryTelemetry } from '../telemetry/receiver-telemetry.js';
import { correlationIdOf, okResponse, type ReceiverResponse } from './answers.js';
import type { DeferredRunner } from './deferred-runner.js';
import { dispatchEvent } from './dispatch-event.js';
import { type BaseContext, pickRun } from './event-run.js';
import { type DeferredInboxStore, isDeferredInboxStore } from './inbox.js';
import { readHeader } from './read-headers.js';
import { type DeliveryParser, type ReceiverBuild, WEB_BUILD } from './receiver-build.js';
import {
  type NormalizedReceiverOptions,
  normalizeReceiverOptions,
  type ReceiverOptions,
} from './receiver-options.js';
import type { RawDelivery, Receiver } from './receiver-types.js';
import { type FailureScope, refuse } from './report-failure.js';
import { parkReason, storeDelivery } from './store-delivery.js';
import { verifyDelivery } from './verify-delivery.js';
import { WebhookError } from './webhook-error.js';

/**
 * Creates a webhook receiver: `receiver.handle({ rawBody, headers })` verifies `X-Signature`
 * with the tenant's secrets, parses and validates the envelope, runs the handler of its
 * `eventType` once per `eventId`, and returns the answer `{ status, headers, body }`. It speaks
 * no framework; `loyalty-partner-sdk/node`, `/express`, `/next` and `/fetch` adapt it.
 *
 * Options are checked here, once: a wrong option throws now, not on the first delivery.
 *
 * @throws {LoyaltyValidationError} `INVALID_OPTIONS`, naming every option at fault (for example
 * a handler under a name that is not an outbound event type)
 *
 * @example
 * ```ts
 * import { createReceiver } from 'loyalty-partner-sdk/webhooks';
 *
 * const secrets: Record<string, string[]> = { 'merchant-1': ['whsec_new', 'whsec_old'] };
 * const receiver = createReceiver({
 *   secrets: (tenantId) => secrets[tenantId],
 *   handlers: {
 *     IntegrationStatusChanged(event, ctx) {
 *       console.log(ctx.tenantId, event.payload.status); // 'Enabled' | 'Disabled' | 'Disconnected'
 *     },
 *   },
 *   onError: (err, ctx) => console.warn(ctx.status, err.code, err.message),
 * });
 * const answer = await receiver.handle({ rawBody: '{}', headers: new Headers() });
 * console.log(answer.status); // 401: no signature
 * ```
 */
export function createReceiver<Tx = undefined>(options: ReceiverOptions<Tx>): Receiver {
  return createReceiverWith(WEB_BUILD, options);
}

/** {@link createReceiver} on the verification and the schemas of a build. */
export function createReceiverWith<Tx>(build: ReceiverBuild, options: ReceiverOptions<Tx>): Receiver {
  const config = normalizeReceiverOptions(options);
  const steps: Steps = { ...build };
  const parser = async () => (steps.parse ??= await steps.loadParser());
  const store = isDeferredInboxStore(config.inbox) ? config.inbox : undefined;
  let closed = false;
  // The runner is loaded by `start()`: a receiver that does not defer, or a web process that
  // only stores, never loads it (a bundler that splits code leaves it in a chunk of its own).
  const start = async () => {
    if (!config.deferred || !store || closed) return;
    if (!steps.runner) {
      const { DeferredRunner } = await import('./deferred-runner.js');
      if (closed) return;
      steps.runner ??= new DeferredRunner(config, store, parser);
    }
    await steps.runner.start();
  };
  const operated = (what: string): DeferredInboxStore<unknown> => {
    if (store) return store;
    throw new LoyaltyValidationError(
      'INVALID_OPTIONS',
      `receiver.${what}() needs an inbox that stores deliveries (memoryInbox, postgresInbox, redisInbox)`,
      [{ path: 'inbox', message: 'has no deferred methods (store, claimDue, stats, list, replay, discard)' }],
    );
  };
  return {
    start,
    async close() {
      closed = true;
      await steps.runner?.close();
    },
    stats: () => operated('stats').stats(),
    list: (query) => operated('list').list(query),
    async replay(eventId) {
      const replayed = await operated('replay').replay(eventId);
      if (replayed) steps.runner?.wake();
      return replayed;
    },
    discard: (eventId) => operated('discard').discard(eventId),
    async handle(delivery: RawDelivery): Promise<ReceiverResponse> {
      const headers = delivery?.headers;
      const tenantHeader = readHeader(headers, 'x-tenantid');
      const scope: FailureScope = {
        tenantId: tenantHeader ?? '',
        correlationId: correlationIdOf(headers),
        receivedAt: new Date(),
      };
      // One test when telemetry is off (no provider given or registered, no logger).
      const trace = config.telemetry.enabled()
        ? new DeliveryTelemetry(config.telemetry, tenantHeader, scope.correlationId)
        : undefined;
      let answer: ReceiverResponse;
      try {
        answer = await (trace
          ? trace.run(() => receive(config, steps, delivery, tenantHeader, scope, trace))
          : receive(config, steps, delivery, tenantHeader, scope, undefined));
      } catch (cause) {
        const error = new WebhookError('RECEIVER_FAILED', 'The receiver failed unexpectedly', { cause });
        const message = 'The receiver failed unexpectedly; retry later';
        answer = refuse(config, error, message, scope);
      }
      trace?.answered(answer);
      return answer;
    },
  };
}

/** A build's steps, with its parser once loaded. */
interface Steps extends ReceiverBuild {
  parse?: DeliveryParser;
  /** With `deferred`: runs stored deliveries once `start()` was called (and loaded it). */
  runner?: DeferredRunner;
}

/** Verifies, parses, and hands the event to the inbox and its handler. */
async function receive(
  config: NormalizedReceiverOptions,
  build: Steps,
  delivery: RawDelivery,
  tenantHeader: string | undefined,
  scope: FailureScope,
  trace: DeliveryTelemetry | undefined,
): Promise<ReceiverResponse> {
  const signatureHeader = readHeader(delivery.headers, 'x-signature');
  const verified = await verifyDelivery(config, build.verify, delivery, tenantHeader, signatureHeader);
  if (!verified.ok) return refuse(config, verified.error, verified.publicMessage, scope);
  trace?.authenticated();

  // Loaded once, on the first verified delivery; a failed load is retried by the next one.
  build.parse ??= await build.loadParser();
  const parsed = build.parse(delivery.rawBody);
  if (parsed.kind === 'invalid') {
    const { error, eventId, eventType } = parsed;
    if (eventId !== undefined && eventType !== undefined) trace?.event(eventId, eventType);
    return refuse(config, error, error.message, { ...scope, eventId, eventType });
  }
  const { eventId, eventType } = parsed.event;
  trace?.event(eventId, eventType);
  const { timestamp, secretIndex } = verified.signature;
  const base: BaseContext = {
    tenantId: scope.tenantId,
    correlationId: scope.correlationId,
    receivedAt: scope.receivedAt,
    signatureTimestamp: timestamp,
    secretIndex,
  };
  const job = pickRun(config, parsed, base);
  if (config.deferred) {
    // normalizeReceiverOptions refused deferred without a store that has the deferred methods.
    const inbox = config.inbox as DeferredInboxStore<unknown>;
    const toStore = { eventId, eventType, rawBody: delivery.rawBody, ...base };
    const parked = job ? undefined : parkReason(parsed);
    const { answer, stored } = await storeDelivery(config, inbox, toStore, parked, scope);
    if (stored === 'pending') build.runner?.wake();
    if (stored && trace)
      countDeferred(config.telemetry, stored === 'pending' ? 'stored' : 'parked', eventType, scope.tenantId);
    return answer;
  }
  if (!job) {
    if (parsed.kind === 'unhandled' && parsed.reason === 'unsupported-schema-version') {
      // Acknowledged, it would be lost for good: the service retries until the receiver is upgraded.
      const text = `schemaVersion ${String(parsed.event.schemaVersion)} is not supported by this version and no onUnhandled takes it`;
      const error = new WebhookError('SCHEMA_VERSION_UNSUPPORTED', text, { eventId, eventType });
      const message = 'This receiver cannot handle this schemaVersion yet; retry later';
      return refuse(config, error, message, { ...scope, eventId, eventType });
    }
    return okResponse('unhandled', eventId, scope.correlationId);
  }
  const timed = trace ? { ...job, run: (tx: unknown) => trace.timeHandler(() => job.run(tx)) } : job;
  return await dispatchEvent(config, { eventId, eventType, tenantId: scope.tenantId }, timed, scope);
}
