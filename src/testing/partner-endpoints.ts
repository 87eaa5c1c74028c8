import { type AdmitDeps, admit } from './authenticate.js';
import type { EmulatorRequest } from './exchange.js';
import {
  type EndpointOutcome,
  errorResponse,
  jsonResponse,
  type Rejection,
  type ReplyContext,
  reject,
} from './http-reply.js';
import { balanceOf } from './ledger.js';
import { type CustomerRecord, connectionState, type MerchantRecord } from './merchant.js';

/**
 * The body of a customer lookup (not shown by the contract); `customer` is `null` when nobody matches.
 *
 * @example
 * ```ts
 * import type { CustomerLookupBody } from 'loyalty-partner-sdk/testing';
 * const nobody: CustomerLookupBody = { customer: null, balance: null };
 * ```
 */
export interface CustomerLookupBody {
  customer: (Omit<CustomerRecord, 'frozen'> & { isActive: boolean }) | null;
  balance: { points: number; stamps: Record<string, number> } | null;
}

// A success always answers a body: `result` is required here, unlike an event handler's.
type Answer = (
  m: MerchantRecord,
  request: EmulatorRequest,
) => Rejection | { ok: true; result: Record<string, unknown> };

// The signature is optional here, but verified when sent (a GET's over its empty body). A success is 200.
const endpoint =
  (answer: Answer) =>
  async (request: EmulatorRequest, ctx: ReplyContext, deps: AdmitDeps): Promise<EndpointOutcome> => {
    const admitted = admit(request, await request.body(), ctx, deps, 'optional');
    if (!('merchant' in admitted)) return admitted;
    const answered = answer(admitted.merchant, request);
    const response = answered.ok
      ? jsonResponse(200, JSON.stringify(answered.result), ctx)
      : errorResponse(answered.code, answered.message, ctx);
    return { response, tenantId: admitted.merchant.tenantId };
  };

/** `GET /connection`: confirms the key; unsigned; never starts webhook delivery (spec 4.2). */
export const checkConnection = endpoint((m) => ({
  ok: true,
  result: {
    tenantId: m.tenantId,
    environment: m.environment,
    status: m.status,
    connection: connectionState(m),
  },
}));

/** `GET /customers/lookup?phone=...` or `?customerId=...` (the service's id): exactly one (spec 4.3). */
export const lookupCustomer = endpoint((m, request) => {
  const params = new URLSearchParams(request.search);
  const phone = params.get('phone');
  const customerId = params.get('customerId');
  if ((phone === null) === (customerId === null) || (phone ?? customerId) === '')
    return reject('INVALID_REQUEST', 'Give exactly one of the query parameters phone and customerId');
  // Indexed: a lookup costs the same with ten customers or a million.
  const externalId = phone !== null ? m.customersByPhone.get(phone) : m.customersById.get(customerId ?? '');
  const found = externalId === undefined ? undefined : m.customers.get(externalId);
  if (!found) return { ok: true, result: { customer: null, balance: null } satisfies CustomerLookupBody };
  const { frozen, ...customer } = found;
  const result = {
    customer: { ...customer, isActive: !frozen },
    balance: balanceOf(m, found.externalCustomerId),
  } satisfies CustomerLookupBody;
  return { ok: true, result };
});

/** Paths of the planned synchronous endpoints (spec 4.4); the contract does not show them. */
export const PLANNED_SYNC_PATHS = [
  '/redemptions/validate',
  '/redemptions/confirm',
  '/refunds/check',
] as const;

/**
 * A planned synchronous endpoint: `400 MISSING_IDEMPOTENCY_KEY` without the header, otherwise
 * `503 EVENT_HANDLER_NOT_REGISTERED` (retryable), as no live endpoint exists yet.
 */
export const plannedEndpoint = endpoint((_m, request) =>
  request.header('idempotency-key')
    ? reject('EVENT_HANDLER_NOT_REGISTERED', 'This synchronous endpoint is planned and not deployed yet')
    : reject('MISSING_IDEMPOTENCY_KEY', 'The Idempotency-Key header is required on this endpoint'),
);
