import type { EVENT_TYPES, InboundEventType, OutboundEventType } from '../contract/index.js';
import type { FaultOptions } from './faults.js';
import type { ListenOptions } from './http-server.js';
import type { EmulatorInspection } from './inspection.js';
import type { MerchantActions } from './merchant-actions.js';
import type { MerchantCredentials, MerchantOptions } from './merchant-store.js';
import type { MswHandler } from './msw-handlers.js';

type PlannedInbound = {
  [K in InboundEventType]: (typeof EVENT_TYPES)[K]['availability'] extends 'Planned' ? K : never;
}[InboundEventType];
type NotEmittedOutbound = {
  [K in OutboundEventType]: (typeof EVENT_TYPES)[K] extends { emitted: false } ? K : never;
}[OutboundEventType];

/**
 * What `emulator.shipHandler` accepts, derived from the catalogue: a Planned inbound type (answered
 * 503 `EVENT_HANDLER_NOT_REGISTERED` until shipped) or an outbound type not emitted yet.
 */
export type ShippableEventType = PlannedInbound | NotEmittedOutbound;

/**
 * A local Loyalty service: merchants, rules, a ledger, signed webhooks with the retry ladder, and
 * every answer of the contract. Reach it over HTTP (`listen`), in process (`fetch`) or through msw
 * (`mswHandlers`); drive the merchant's side with the dashboard actions; look inside with the
 * inspection methods. Created by `createEmulator`.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator({ clock: 'manual' });
 * const merchant = emulator.createMerchant({ receiverUrl: 'http://127.0.0.1:4000/loyalty/webhooks' });
 * const { url } = await emulator.listen();
 * // ... the code under test sends to `url`; then:
 * await emulator.advance(60_000);
 * console.log(emulator.deliveries({ tenantId: merchant.tenantId }).map((d) => d.status));
 * await emulator.close();
 * ```
 */
export interface Emulator extends MerchantActions, EmulatorInspection {
  /** The base URL after `listen()`, e.g. `http://127.0.0.1:53127`; `undefined` before. */
  readonly url: string | undefined;
  /**
   * Adds a merchant and, unless `activated: false`, activates it: the credentials work at once,
   * and IntegrationStatusChanged plus a LoyaltyRuleChanged per rule wait for the first signed event.
   */
  createMerchant(options?: MerchantOptions): MerchantCredentials;
  /**
   * Answers a request in process, exactly as over HTTP; pass it as a client's `fetch`. The host of
   * the URL does not matter. A `reset` fault rejects like a dropped connection; a `timeout` fault
   * never settles until the request's signal aborts.
   */
  readonly fetch: (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;
  /** Serves the emulator on loopback; a second call returns the same URL. */
  listen(options?: ListenOptions): Promise<{ url: string }>;
  /** Stops the server, every delivery and every timer, and releases hung requests. */
  close(): Promise<void>;
  /** Manual clock only: moves time forward, running every retry and expiry that falls due. */
  advance(ms: number): Promise<void>;
  /** Resolves once no delivery attempt is under way (scheduled retries are not waited for). */
  idle(): Promise<void>;
  /** The service's time: the emulator's clock plus any skew. */
  now(): Date;
  /** Ships a Planned handler (InvoiceRefunded also starts RefundReversalCompleted) or an outbound type. */
  shipHandler(eventType: ShippableEventType): void;
  /** Faults requests from now on, reproducibly from `seed`; replaces any earlier plan. */
  injectFaults(options: FaultOptions): void;
  clearFaults(): void;
  /** Every partner request waits `ms` real milliseconds before it is answered (0 to 60000). */
  setLatency(ms: number): void;
  /** Sets how far the service's clock is off, in seconds (positive: ahead). */
  setClockSkew(seconds: number): void;
  /** msw handlers answering every partner endpoint below `baseUrl` from this emulator. */
  mswHandlers(baseUrl: string): Promise<MswHandler[]>;
}
