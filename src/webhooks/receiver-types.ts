import type { z } from 'zod/mini';
import type { OutboundEventType } from '../contract/event-types.js';
import type { Envelope } from '../contract/schemas/envelope.js';
import type { receivedEnvelopeHeaderSchema } from '../contract/schemas/received-envelope.js';
import type { RawBody } from '../signature/bytes.js';
import type { ReceiverResponse } from './answers.js';
import type { DeliveryQuery, DeliveryRecord, DeliveryState } from './inbox.js';
import type { HeadersLike } from './read-headers.js';

/**
 * What a handler learns about the delivery besides the event itself; `ctx.tx` is the inbox's
 * transaction with a transactional inbox (`Tx` its type), else `undefined`.
 *
 * @example
 * ```ts
 * import type { DeliveryContext } from 'loyalty-partner-sdk/webhooks';
 * const log = (ctx: DeliveryContext) => console.info(ctx.tenantId, ctx.correlationId, ctx.secretIndex);
 * ```
 */
export interface DeliveryContext<Tx = undefined> {
  /** The delivery's `X-TenantId`: which merchant the event is about. `''` when absent (static secrets only). */
  tenantId: string;
  /** The delivery's `X-Correlation-Id`, or a generated id when it had none; also in every answer. */
  correlationId: string;
  /** The authenticated `t` of `X-Signature`, unix seconds: when the service signed this attempt. */
  signatureTimestamp: number;
  /** When the receiver got the delivery. */
  receivedAt: Date;
  /** Which of the tenant's secrets matched (0 = first), e.g. to know when an old one can go. */
  secretIndex: number;
  /**
   * The inbox's transaction the handler runs in (write your own rows through it: they commit
   * together with the "handled" mark, or not at all); `undefined` for a non-transactional inbox.
   */
  readonly tx: Tx;
}

/**
 * One optional handler per event type the service delivers, typed by name, given the whole
 * envelope of its type and the delivery context; one that throws gets 500 and a redelivery.
 *
 * @example
 * ```ts
 * import type { WebhookHandlers } from 'loyalty-partner-sdk/webhooks';
 * export const handlers: WebhookHandlers = {
 *   RedemptionExpiredOrCancelled: (event) => console.info(event.payload.redemptionId, event.payload.reason),
 * };
 * ```
 */
export type WebhookHandlers<Tx = undefined> = {
  [K in OutboundEventType]?: (event: Envelope<K>, ctx: DeliveryContext<Tx>) => unknown;
};

/**
 * A verified event that no handler of this receiver takes: its envelope fields, payload unjudged.
 *
 * @example
 * ```ts
 * import type { UnhandledEvent } from 'loyalty-partner-sdk/webhooks';
 * const park = (event: UnhandledEvent) => console.info(event.eventType, event.schemaVersion, event.payload);
 * ```
 */
export type UnhandledEvent = z.output<typeof receivedEnvelopeHeaderSchema>;

/**
 * Why an event went to `onUnhandled`: an event type this SDK does not know, a `schemaVersion`
 * other than 1 (a newer contract), or a known type for which no handler is registered.
 */
export type UnhandledReason = 'unknown-event-type' | 'unsupported-schema-version' | 'no-handler';

/** The context `onUnhandled` gets: the delivery context and the reason. */
export interface UnhandledContext<Tx = undefined> extends DeliveryContext<Tx> {
  reason: UnhandledReason;
}

/**
 * The context `onError` gets: what is known about the delivery when it failed, and the answer.
 *
 * @example
 * ```ts
 * import type { ErrorContext } from 'loyalty-partner-sdk/webhooks';
 * const line = (ctx: ErrorContext) => `${ctx.status} ${ctx.tenantId} ${ctx.eventId ?? '-'} ${ctx.correlationId}`;
 * ```
 */
export interface ErrorContext {
  tenantId: string;
  correlationId: string;
  receivedAt: Date;
  /** The HTTP status the delivery is answered with. */
  status: number;
  /** Set once the body was parsed as an envelope. */
  eventId?: string | undefined;
  eventType?: string | undefined;
}

/**
 * One delivery's raw HTTP request, as an adapter passes it to `receiver.handle`: the exact body
 * bytes and the headers.
 *
 * @example
 * ```ts
 * import type { RawDelivery } from 'loyalty-partner-sdk/webhooks';
 * const fromRequest = async (request: Request): Promise<RawDelivery> => ({
 *   rawBody: new Uint8Array(await request.arrayBuffer()),
 *   headers: request.headers,
 * });
 * ```
 */
export interface RawDelivery {
  /** The body exactly as received: bytes (`Uint8Array`, `Buffer`, `ArrayBuffer`) or a string. */
  rawBody: RawBody;
  /** The request headers: `Headers`, Node's `IncomingHttpHeaders` or a plain record. */
  headers: HeadersLike;
}

/**
 * A webhook receiver: one framework-free function from a delivery to an answer.
 *
 * @example
 * ```ts
 * import type { Receiver } from 'loyalty-partner-sdk/webhooks';
 * // A custom adapter is a few lines: bytes and headers in, status, headers and body out.
 * export const serve = (receiver: Receiver) => async (request: Request) => {
 *   const answer = await receiver.handle({ rawBody: await request.arrayBuffer(), headers: request.headers });
 *   return new Response(answer.body, answer);
 * };
 * ```
 */
export interface Receiver {
  /**
   * Verifies, deduplicates and dispatches one delivery, and says what to answer. Never throws
   * and never rejects: every failure becomes an answer (see the README's answer table).
   */
  handle(delivery: RawDelivery): Promise<ReceiverResponse>;
  /**
   * With `deferred: true`: runs the stored deliveries' handlers in this process until `close()`;
   * resolves once running. Without `deferred`, does nothing.
   */
  start(): Promise<void>;
  /** Stops running stored deliveries and waits for the handlers under way. */
  close(): Promise<void>;
  /** How many stored deliveries are in each state. Needs an inbox that stores deliveries. */
  stats(): Promise<Record<DeliveryState, number>>;
  /** Stored deliveries in one state, oldest received first, without their bodies. */
  list(query: DeliveryQuery): Promise<DeliveryRecord[]>;
  /** Back to `pending`: its handler runs again (after an upgrade, a parked one is handled). */
  replay(eventId: string): Promise<boolean>;
  /** Never handled; remembered for dedup within the retention. */
  discard(eventId: string): Promise<boolean>;
}
