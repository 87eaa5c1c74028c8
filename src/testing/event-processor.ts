import {
  EVENT_TYPES,
  type EventType,
  type InboundEnvelope,
  type InboundEventType,
  isErrorCode,
  LoyaltyValidationError,
  parseInboundEnvelope,
} from '../contract/index.js';
import { type AdmitDeps, admit } from './authenticate.js';
import { EVENT_HANDLERS, type HandlerContext } from './event-handlers.js';
import type { EmulatorRequest } from './exchange.js';
import {
  type EndpointOutcome,
  errorResponse,
  type HandlerResult,
  jsonResponse,
  type Rejection,
  type ReplyContext,
  reject,
} from './http-reply.js';
import type { Emit } from './outbound-events.js';
import { processedBody, type ResponseCache } from './response-cache.js';

export interface EventProcessorDeps extends AdmitDeps {
  cache: ResponseCache;
  emit: Emit;
  /** Starts the tenant's queued deliveries (its first signed event just arrived). */
  release: (tenantId: string) => void;
  /** Whether a Planned type's handler has shipped (`emulator.shipHandler`). */
  isShipped: (eventType: EventType) => boolean;
}

type Parsed = { ok: true; envelope: InboundEnvelope } | (Rejection & { eventType?: string });

// The contract refuses `Stamps` without a card as INVALID_PAYLOAD; the service has its own code.
function parse(rawBody: Uint8Array): Parsed {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody));
  } catch {
    return reject('INVALID_PAYLOAD', 'The body is not valid JSON');
  }
  const eventType = (json as { eventType?: unknown } | null)?.eventType;
  // A missing eventType is a missing field, not an unknown type.
  if (typeof eventType !== 'string')
    return reject('INVALID_PAYLOAD', 'The body is not an envelope with an eventType');
  try {
    return { ok: true, envelope: parseInboundEnvelope(json) };
  } catch (err) {
    if (!(err instanceof LoyaltyValidationError)) throw err;
    const onlyStampCard =
      err.issues.length > 0 && err.issues.every((issue) => issue.path === 'payload.stampCardId');
    const stamps = (json as { payload?: { earnType?: unknown } }).payload?.earnType === 'Stamps';
    if (eventType === 'InvoiceEarned' && onlyStampCard && stamps) {
      return {
        ...reject('MISSING_STAMP_CARD_ID', 'earnType is Stamps but stampCardId is missing'),
        eventType,
      };
    }
    return { ...reject(isErrorCode(err.code) ? err.code : 'INVALID_PAYLOAD', err.message), eventType };
  }
}

/**
 * POST /api/partner/v1/events: API key -> connection state -> signature -> parse -> dedup cache
 * -> availability -> subscription -> handler. Only successes are cached, so a refused event is
 * processed afresh when redelivered. `skewSeconds` is how far off the signature clock is (faults).
 */
export async function processEvent(
  request: EmulatorRequest,
  ctx: ReplyContext,
  deps: EventProcessorDeps,
  skewSeconds = 0,
): Promise<EndpointOutcome> {
  const facts: Omit<EndpointOutcome, 'response'> = {};
  const refuse = (r: Rejection) => ({ response: errorResponse(r.code, r.message, ctx), ...facts });
  const rawBody = await request.body();
  const admitted = admit(request, rawBody, ctx, deps, 'required', skewSeconds);
  if (!('merchant' in admitted)) return admitted;
  const { merchant } = admitted;
  facts.tenantId = merchant.tenantId;
  if (!merchant.proven) {
    // The first signed event proves the credentials: queued webhooks go out now (spec 3.1).
    merchant.proven = true;
    deps.release(merchant.tenantId);
  }

  const parsed = parse(rawBody);
  if (!parsed.ok) {
    if (parsed.eventType !== undefined) facts.eventType = parsed.eventType;
    return refuse(parsed);
  }
  const { envelope } = parsed;
  facts.eventId = envelope.eventId;
  facts.eventType = envelope.eventType;
  const cached = deps.cache.get(merchant.tenantId, envelope.eventId);
  if (cached) {
    // Replayed as it was first sent, under the first answer's correlation id.
    const response = jsonResponse(200, processedBody(envelope.eventId, cached.result), {
      ...ctx,
      correlationId: cached.correlationId,
    });
    return { response, ...facts, replayed: true };
  }
  if (EVENT_TYPES[envelope.eventType].availability === 'Planned' && !deps.isShipped(envelope.eventType)) {
    return refuse(
      reject(
        'EVENT_HANDLER_NOT_REGISTERED',
        `${envelope.eventType} is Planned: its handler is not deployed yet`,
      ),
    );
  }
  if (!merchant.subscriptionActive) {
    return refuse(reject('SUBSCRIPTION_LAPSED', "The merchant's subscription is not active"));
  }
  const handle = EVENT_HANDLERS[envelope.eventType] as (c: HandlerContext<InboundEventType>) => HandlerResult;
  const outcome = handle({
    merchant,
    payload: envelope.payload,
    eventId: envelope.eventId,
    correlationId: envelope.correlationId ?? ctx.correlationId,
    now: ctx.now,
    emit: deps.emit,
  });
  if (!outcome.ok) return refuse(outcome);

  const { result } = outcome;
  deps.cache.set(merchant.tenantId, envelope.eventId, { result, correlationId: ctx.correlationId });
  return { response: jsonResponse(200, processedBody(envelope.eventId, result), ctx), ...facts };
}
