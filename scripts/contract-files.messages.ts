/**
 * The messages of the AsyncAPI document (scripts/contract-files.asyncapi.ts): one per event type,
 * the whole envelope as its payload, with the headers of its direction; and the answers, one per
 * HTTP status, each listing the error codes of the catalogue that come with that status.
 */
import {
  ERROR_CODES,
  type ErrorCodeInfo,
  EVENT_TYPES,
  type EventType,
  INBOUND_EVENT_TYPES,
  OUTBOUND_EVENT_TYPES,
  schemas,
} from '../src/contract/index.js';
import { SIGNATURE_TOLERANCE_SECONDS } from '../src/contract/limits.js';
import { type JsonSchema, toJsonSchema } from './contract-files.schemas.js';

export const HTTP = { bindingVersion: '0.3.0' };

const SIGNATURE_HEADER = {
  type: 'string',
  pattern: '^t=[0-9]+(,v1=[0-9a-f]{64})+$',
  description:
    'HMAC-SHA256 over `<t>.<raw body>` with the signing secret, hex: `t=<unix seconds>,v1=<hex>[,v1=<hex>...]` ' +
    '(one v1 per active secret). Receivers parse it as comma-separated parts, need one t= and at least one ' +
    `v1=, refuse a t more than ${SIGNATURE_TOLERANCE_SECONDS} s from now, and compare every v1 in constant time.`,
};

/** The envelope of one event type, its payload referring to `#/components/schemas/<eventType>`. */
function envelopeOf(envelopes: JsonSchema, eventType: EventType): JsonSchema {
  const branches = envelopes.oneOf as JsonSchema[];
  const branch = branches.find(
    (candidate) => (candidate.properties as Record<string, JsonSchema>).eventType?.const === eventType,
  );
  if (!branch) throw new Error(`contract files: no envelope for ${eventType}`);
  const properties = branch.properties as Record<string, JsonSchema>;
  return { ...branch, properties: { ...properties, payload: { $ref: `#/components/schemas/${eventType}` } } };
}

function eventMessage(eventType: EventType, envelope: JsonSchema, trait: string): JsonSchema {
  const info = EVENT_TYPES[eventType];
  return {
    name: eventType,
    title: eventType,
    summary: info.description,
    contentType: 'application/json',
    tags: [{ name: info.availability }],
    traits: [{ $ref: `#/components/messageTraits/${trait}` }],
    payload: envelope,
  };
}

function codesOf(status: ErrorCodeInfo['status']): Record<string, JsonSchema> {
  const rows = Object.entries(ERROR_CODES as Record<string, ErrorCodeInfo>).filter(
    ([, info]) => info.status === status,
  );
  return Object.fromEntries(
    rows.map(([code, info]) => [
      code,
      {
        action: info.action,
        retryable: info.retryable,
        ...(info.planned ? { planned: true } : {}),
        ...(info.tenantWide ? { tenantWide: true } : {}),
        condition: info.condition,
        remedy: info.remedy,
      },
    ]),
  );
}

function errorMessage(status: ErrorCodeInfo['status'], summary: string): JsonSchema {
  return {
    name: `Error${status}`,
    summary,
    contentType: 'application/json',
    payload: { $ref: '#/components/schemas/ErrorEnvelope' },
    bindings: { http: { ...HTTP, statusCode: status } },
    'x-error-codes': codesOf(status),
  };
}

/** One message per event type: the envelope for that type, with the headers of its direction. */
export function eventMessages(): Record<EventType, JsonSchema> {
  const sent = toJsonSchema(schemas.envelope, 'draft-07');
  const received = toJsonSchema(schemas.outboundEnvelope, 'draft-07');
  const messages = {} as Record<EventType, JsonSchema>;
  for (const eventType of INBOUND_EVENT_TYPES) {
    messages[eventType] = eventMessage(eventType, envelopeOf(sent, eventType), 'partnerRequest');
  }
  for (const eventType of OUTBOUND_EVENT_TYPES) {
    messages[eventType] = eventMessage(eventType, envelopeOf(received, eventType), 'signedDelivery');
  }
  return messages;
}

/** The service's answers to `POST /events`, and the receiver's answers to a delivery. */
export const SERVICE_RESPONSES = ['Accepted', 'Error400', 'Error401', 'Error422', 'Error503'] as const;
export const RECEIVER_RESPONSES = ['DeliveryAccepted', 'DeliveryRefused', 'DeliveryNotReady'] as const;

/** The answer messages, each with its HTTP status and, for errors, the codes that come with it. */
export function responseMessages(): Record<
  (typeof SERVICE_RESPONSES)[number] | (typeof RECEIVER_RESPONSES)[number],
  JsonSchema
> {
  return {
    Accepted: {
      name: 'Accepted',
      summary:
        'The event was accepted (or its cached response replayed). The body is not shown by the contract.',
      bindings: { http: { ...HTTP, statusCode: 200 } },
    },
    Error400: errorMessage(400, 'Malformed request or permanent client error: do not retry as is.'),
    Error401: errorMessage(401, 'API key, signature or connection state invalid.'),
    Error422: errorMessage(422, 'Planned: a business rule declined a synchronous write.'),
    Error503: errorMessage(503, 'Integration paused or not ready: retry with backoff, same eventId.'),
    DeliveryAccepted: {
      name: 'DeliveryAccepted',
      summary: 'Any 2xx: the delivery is done. Answer it for a duplicate eventId too.',
      bindings: { http: { ...HTTP, statusCode: 200 } },
    },
    DeliveryRefused: {
      name: 'DeliveryRefused',
      summary: 'The signature did not verify. Only SIGNATURE_EXPIRED is retried; any other 4xx is final.',
      contentType: 'application/json',
      payload: { $ref: '#/components/schemas/ErrorEnvelope' },
      bindings: { http: { ...HTTP, statusCode: 401 } },
      'x-error-codes': {
        INVALID_SIGNATURE: {
          retried: false,
          condition: 'no v1 matches under any of the tenant’s secrets',
        },
        SIGNATURE_EXPIRED: {
          retried: true,
          condition: `t is more than ${SIGNATURE_TOLERANCE_SECONDS} s from now`,
        },
      },
    },
    DeliveryNotReady: {
      name: 'DeliveryNotReady',
      summary: 'The receiver cannot take it now: any 5xx or 429 (or no answer) is retried on the ladder.',
      contentType: 'application/json',
      payload: { $ref: '#/components/schemas/ErrorEnvelope' },
      bindings: { http: { ...HTTP, statusCode: 503 } },
    },
  };
}

/** The headers of a partner request and of a delivery. */
export function messageTraits(): Record<string, JsonSchema> {
  return {
    partnerRequest: {
      headers: {
        type: 'object',
        required: ['X-Api-Key', 'X-Signature'],
        properties: {
          'X-Api-Key': { type: 'string', description: 'The API key; it selects the tenant.' },
          'X-Signature': SIGNATURE_HEADER,
        },
      },
    },
    signedDelivery: {
      headers: {
        type: 'object',
        required: ['X-Signature', 'X-TenantId'],
        properties: {
          'X-Signature': SIGNATURE_HEADER,
          'X-TenantId': {
            type: 'string',
            description: "The merchant's tenant id as entered at activation: route on it, pick its secret.",
          },
          'X-Correlation-Id': {
            type: 'string',
            description: 'Ties the delivery to the business action that produced it; for logs.',
          },
        },
      },
    },
  };
}
