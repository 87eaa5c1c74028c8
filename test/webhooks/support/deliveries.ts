import {
  createEnvelope,
  type Envelope,
  type OutboundEventType,
  type PayloadInput,
} from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';
import { samplePayload } from 'loyalty-partner-sdk/testing';

/** Secrets of the test tenants: merchant-1 is rotating (new first), merchant-2 has one. */
export const SECRETS = {
  'merchant-1': ['whsec_m1_new_0123456789', 'whsec_m1_old_0123456789'],
  'merchant-2': ['whsec_m2_only_0123456789'],
} as const satisfies Record<string, readonly string[]>;
export const SECRET = SECRETS['merchant-1'][0];
export const ALL_SECRETS: readonly string[] = Object.values(SECRETS).flat();

/** A resolver over {@link SECRETS}, as a receiver serving several merchants would use. */
export const resolveSecrets = (tenantId: string): readonly string[] | undefined =>
  (SECRETS as Record<string, readonly string[]>)[tenantId];

export const now = (): number => Math.floor(Date.now() / 1000);

/** An outbound event as the service would deliver it, from the sample payload of its type. */
export function outboundEvent<T extends OutboundEventType>(
  eventType: T,
  payload: PayloadInput<T> = samplePayload(eventType),
): Envelope<T> {
  return createEnvelope(eventType, payload, { entityId: 'entity-1' });
}

export interface DeliveryOptions {
  secret?: string | readonly string[];
  timestamp?: number;
  tenantId?: string | null;
  correlationId?: string;
  /** Replaces the computed `X-Signature` (`null` leaves it out). */
  signature?: string | null;
}

/** A signed delivery: the exact body text and the headers the service would send with it. */
export interface SignedDelivery {
  rawBody: string;
  headers: Record<string, string>;
}

/** Signs a body (an envelope is serialised first) for tenant merchant-1 unless told otherwise. */
export function signedDelivery(body: object | string, options: DeliveryOptions = {}): SignedDelivery {
  const rawBody = typeof body === 'string' ? body : JSON.stringify(body);
  const signature =
    options.signature === undefined
      ? signPayload(rawBody, options.secret ?? SECRET, { timestamp: options.timestamp ?? now() })
      : options.signature;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (signature !== null) headers['x-signature'] = signature;
  const tenantId = options.tenantId === undefined ? 'merchant-1' : options.tenantId;
  if (tenantId !== null) headers['x-tenantid'] = tenantId;
  if (options.correlationId !== undefined) headers['x-correlation-id'] = options.correlationId;
  return { rawBody, headers };
}

/** The parsed JSON body of an answer. */
export const bodyOf = (answer: { body: string }): Record<string, unknown> => JSON.parse(answer.body);
