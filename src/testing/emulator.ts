import { EVENT_TYPES, type EventType } from '../contract/index.js';
import { type EmulatorClock, manualClock, systemClock } from './clock.js';
import { handleControl, isControlPath } from './control/control-api.js';
import type { ControlDeps } from './control/control-deps.js';
import type { Emulator, ShippableEventType } from './emulator-api.js';
import { EmulatorError } from './emulator-error.js';
import { checkLatency, type EmulatorOptions, resolveEmulatorOptions } from './emulator-options.js';
import { answerWebRequest, type EmulatorTransport } from './exchange.js';
import { FaultInjector, type FaultOptions } from './faults.js';
import { respond } from './http-reply.js';
import { startHttpServer } from './http-server.js';
import { createInspection } from './inspection.js';
import { createMerchantActions } from './merchant-actions.js';
import { credentialsOf, MERCHANT_DEFAULTS, MerchantStore } from './merchant-store.js';
import { mswHandlersFor } from './msw-handlers.js';
import { createEmitter } from './outbound-events.js';
import { RequestLog } from './request-log.js';
import { routeRequest } from './request-router.js';
import { ResponseCache } from './response-cache.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';

const isShippable = (eventType: string): eventType is ShippableEventType => {
  const info = (EVENT_TYPES as Record<string, { availability: string; emitted?: boolean }>)[eventType];
  return info !== undefined && (info.availability === 'Planned' || info.emitted === false);
};

/**
 * Creates a local Loyalty service for tests and demos. See `Emulator` for what it offers.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator({ clock: 'manual' });
 * const { apiKey, signingSecret, tenantId } = emulator.createMerchant();
 * const { url } = await emulator.listen();
 * // ... point the code under test at `url` with `apiKey` and `signingSecret` ...
 * console.log(emulator.merchant(tenantId).connection); // 'AwaitingFirstSignedEvent'
 * await emulator.close();
 * ```
 */
export function createEmulator(options: EmulatorOptions = {}): Emulator {
  const config = resolveEmulatorOptions(options);
  const clock: EmulatorClock =
    config.clock === 'manual' ? manualClock(config.startTime) : systemClock(config.timeScale);
  let skewMs = config.clockSkewSeconds * 1000;
  const serviceNow = () => clock.now() + skewMs;
  const store = new MerchantStore();
  const shipped = new Set<EventType>();
  const dispatcher = new WebhookDispatcher({
    clock,
    historyLimit: config.historyLimit,
    serviceNow,
    fetch: config.fetch,
    timeoutMs: config.deliveryTimeoutMs,
    target: (tenantId) => {
      const m = store.get(tenantId);
      return m.activated && m.proven && m.receiverUrl
        ? { url: m.receiverUrl, secrets: m.secrets }
        : undefined;
    },
  });
  const emit = createEmitter(serviceNow, dispatcher, shipped);
  const release = (tenantId: string) => dispatcher.release(tenantId);
  const actions = createMerchantActions({
    store,
    emit,
    now: serviceNow,
    release,
    ttlMs: config.redemptionTtlMs,
    schedule: (delayMs, task) => clock.schedule(delayMs, task),
  });
  const faults = new FaultInjector();
  const log = new RequestLog(config.historyLimit);
  const cache = new ResponseCache(serviceNow, config.historyLimit);
  let latencyMs = config.latencyMs;
  let faultPlan: FaultOptions | null = null;
  const hung = new Set<() => void>();
  let closed = false;
  const routerDeps = {
    store,
    environment: config.environment,
    cache,
    emit,
    release,
    isShipped: (eventType: EventType) => shipped.has(eventType),
    faults,
    log,
    serviceNow,
    clockNow: () => clock.now(),
  };
  const transport: EmulatorTransport = {
    async handle(request, basePath) {
      if (isControlPath(request.pathname)) return respond(await handleControl(request, controlDeps));
      if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
      return routeRequest(request, routerDeps, basePath);
    },
    released: (signal) =>
      new Promise<void>((resolve) => {
        if (closed || signal?.aborted) return resolve();
        hung.add(resolve);
        signal?.addEventListener('abort', () => resolve(), { once: true });
      }),
  };
  let server: Awaited<ReturnType<typeof startHttpServer>> | undefined;
  let allowedHosts: readonly string[] = [];

  const emulator: Emulator = {
    ...actions,
    ...createInspection(store, log, dispatcher),
    get url() {
      return server?.url;
    },
    createMerchant(merchantOptions = {}) {
      const merchant = store.create(merchantOptions, config);
      if (merchantOptions.activated ?? MERCHANT_DEFAULTS.activated) actions.activate(merchant.tenantId);
      return credentialsOf(merchant);
    },
    fetch: async (input, init) => {
      const request = new Request(input, init);
      const response = await answerWebRequest(transport, request);
      if (response) return response;
      if (request.signal.aborted) throw request.signal.reason;
      // What undici throws when the other side drops the connection.
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }),
      });
    },
    async listen(listenOptions) {
      if (closed) throw new EmulatorError('INVALID_OPERATION', 'This emulator is closed');
      if (!server) {
        // The name it was asked to listen on is its own, e.g. `--host emulator` in a container.
        const host = listenOptions?.host;
        allowedHosts = [...(listenOptions?.allowedHosts ?? []), ...(host ? [host] : [])];
        server = await startHttpServer(transport, listenOptions);
      }
      return { url: server.url };
    },
    async close() {
      closed = true;
      for (const resolve of hung) resolve();
      hung.clear();
      clock.clear();
      await Promise.all([dispatcher.close(), server?.close()]);
    },
    async advance(ms) {
      await dispatcher.idle();
      await clock.advance(ms);
      await dispatcher.idle();
    },
    idle: () => dispatcher.idle(),
    now: () => new Date(serviceNow()),
    shipHandler(eventType) {
      if (!isShippable(eventType))
        throw new EmulatorError('INVALID_OPERATION', `${eventType} is not a Planned event type`);
      shipped.add(eventType);
      // The outbound follow-up the InvoiceRefunded handler starts emitting when it ships (spec 6.2).
      if (eventType === 'InvoiceRefunded') shipped.add('RefundReversalCompleted');
    },
    injectFaults(faultOptions) {
      faults.configure(faultOptions);
      faultPlan = structuredClone(faultOptions);
    },
    clearFaults() {
      faults.clear();
      faultPlan = null;
    },
    setLatency(ms) {
      checkLatency(ms);
      latencyMs = ms;
    },
    setClockSkew(seconds) {
      if (!Number.isFinite(seconds))
        throw new EmulatorError('INVALID_OPTIONS', 'setClockSkew needs a finite number of seconds');
      skewMs = seconds * 1000;
    },
    mswHandlers: (baseUrl) => mswHandlersFor(transport, baseUrl),
  };
  const controlDeps: ControlDeps = {
    emulator,
    store,
    recentDeliveries: (count) => dispatcher.recent(count),
    log,
    cacheSize: () => cache.size,
    shipped: () => [...shipped],
    faults: () => faultPlan,
    latencyMs: () => latencyMs,
    allowedHosts: () => allowedHosts,
  };
  return emulator;
}
