/**
 * What every successful call returns.
 *
 * @example
 * ```ts
 * import { type ApiResult, LoyaltyClient } from 'loyalty-partner-sdk';
 * const client = new LoyaltyClient({ baseUrl: 'https://loyalty.example', apiKey: 'key', signingSecret: 'secret' });
 * const { status, correlationId, attempts }: ApiResult = await client.checkConnection();
 * ```
 */
export interface ApiResult<Body = unknown> {
  /** HTTP status of the answer (2xx). */
  status: number;
  /** From `X-Correlation-Id`, else the body's `correlationId`. */
  correlationId: string | undefined;
  /** HTTP attempts made, the successful one included. */
  attempts: number;
  /** The answer's body: parsed JSON, else its text; `undefined` when empty. */
  body: Body;
}

/**
 * The body of a customer lookup. The contract does not show it (spec 4.3), so the SDK promises
 * no field: it is the JSON object the service answered with, each value `unknown` until you
 * check it, or `{}` when the answer held no JSON object.
 *
 * @example
 * ```ts
 * import type { CustomerLookupBody } from 'loyalty-partner-sdk';
 * const idOf = (body: CustomerLookupBody) => (typeof body.customerId === 'string' ? body.customerId : undefined);
 * ```
 */
export type CustomerLookupBody = Readonly<Record<string, unknown>>;

/** A body as {@link CustomerLookupBody}: the object itself, else `{}`. */
export function lookupBody(body: unknown): CustomerLookupBody {
  return typeof body === 'object' && body !== null && !Array.isArray(body)
    ? (body as CustomerLookupBody)
    : {};
}
