/**
 * The contract as an AsyncAPI 3 document, seen from the partner's application: it sends events
 * to `POST /api/partner/v1/events` and receives the service's deliveries on its receiver. The
 * schemas are the same zod catalogue as contract/schemas/*.json, in draft-07 (the AsyncAPI
 * Schema Object's dialect), so both say the same thing.
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
import { type JsonSchema, schemaId, toJsonSchema } from './contract-files.schemas.js';

const HTTP = { bindingVersion: '0.3.0' };
const SPEC = 'docs/contract-files.md';

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

const refs = (path: string, names: readonly string[]) => names.map((name) => ({ $ref: `${path}/${name}` }));
const byName = (path: string, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `${path}/${name}` }]));

/** The AsyncAPI 3.0 document of the contract. */
export function asyncApiDocument(): JsonSchema {
  const sent = toJsonSchema(schemas.envelope, 'draft-07');
  const received = toJsonSchema(schemas.outboundEnvelope, 'draft-07');
  const payloadSchemas: Record<string, JsonSchema> = {};
  const messages: Record<string, JsonSchema> = {};
  for (const eventType of INBOUND_EVENT_TYPES) {
    messages[eventType] = eventMessage(eventType, envelopeOf(sent, eventType), 'partnerRequest');
  }
  for (const eventType of OUTBOUND_EVENT_TYPES) {
    messages[eventType] = eventMessage(eventType, envelopeOf(received, eventType), 'signedDelivery');
  }
  for (const eventType of [...INBOUND_EVENT_TYPES, ...OUTBOUND_EVENT_TYPES]) {
    const { $schema: _, ...payload } = toJsonSchema(schemas.payloads[eventType], 'draft-07');
    payloadSchemas[eventType] = payload;
  }
  const { $schema: _, ...errorEnvelope } = toJsonSchema(schemas.errorEnvelope, 'draft-07');
  const replies = ['Accepted', 'Error400', 'Error401', 'Error422', 'Error503'];

  return {
    asyncapi: '3.1.0',
    id: 'urn:loyalty-partner-sdk:contract:v1',
    info: {
      title: 'Loyalty Partner Event Interface',
      version: '1',
      description:
        'The wire contract between a partner (a point-of-sale or kiosk system) and the Loyalty service, ' +
        'seen from the partner: it posts signed events to the service and receives signed deliveries on its ' +
        'registered receiver. Every body is one envelope; only eventType and payload change between the ' +
        `16 event types. The same contract as JSON Schema 2020-12: ${schemaId('envelope')} and its siblings ` +
        `in contract/schemas/. What the contract leaves unsaid and how the SDK chose: ${SPEC}.`,
    },
    defaultContentType: 'application/json',
    servers: {
      loyalty: {
        host: '{loyaltyHost}',
        protocol: 'https',
        description: 'The Loyalty service ({base_url}); the tenant comes from the API key, never the body.',
        variables: { loyaltyHost: { description: 'Host of the Loyalty service for your environment.' } },
        security: [{ $ref: '#/components/securitySchemes/apiKey' }],
      },
      partnerReceiver: {
        host: '{receiverHost}',
        protocol: 'https',
        description:
          'The partner’s receiver, registered once per deployment (testing, production) outside the API; ' +
          'shared by every tenant (X-TenantId tells them apart).',
        variables: { receiverHost: { description: 'Host of your registered receiver URL.' } },
      },
    },
    channels: {
      events: {
        address: '/api/partner/v1/events',
        title: 'POST /api/partner/v1/events',
        description: 'The partner posts one event per request. eventId is the dedup key (24 h).',
        servers: [{ $ref: '#/servers/loyalty' }],
        messages: byName('#/components/messages', INBOUND_EVENT_TYPES),
      },
      eventsResponse: {
        address: null,
        description: 'The response to POST /events: 200, or the error envelope with the status of its code.',
        servers: [{ $ref: '#/servers/loyalty' }],
        messages: byName('#/components/messages', replies),
      },
      receiver: {
        address: null,
        title: "POST to the partner's receiver",
        description: 'The registered receiver URL (its address is set at registration, not here).',
        servers: [{ $ref: '#/servers/partnerReceiver' }],
        messages: byName('#/components/messages', OUTBOUND_EVENT_TYPES),
      },
    },
    operations: {
      sendEvent: {
        action: 'send',
        title: 'Post an event',
        channel: { $ref: '#/channels/events' },
        messages: refs('#/channels/events/messages', INBOUND_EVENT_TYPES),
        bindings: { http: { ...HTTP, method: 'POST' } },
        reply: {
          channel: { $ref: '#/channels/eventsResponse' },
          messages: refs('#/channels/eventsResponse/messages', replies),
        },
      },
      receiveDelivery: {
        action: 'receive',
        title: 'Receive a delivery',
        description:
          'Answer 2xx promptly and be idempotent on eventId. 5xx, 429, a timeout and a 401 carrying ' +
          'SIGNATURE_EXPIRED are retried (after 1 min, 5 min, 15 min, 1 h, 6 h); any other 4xx is final.',
        channel: { $ref: '#/channels/receiver' },
        messages: refs('#/channels/receiver/messages', OUTBOUND_EVENT_TYPES),
        bindings: { http: { ...HTTP, method: 'POST' } },
      },
    },
    components: {
      schemas: { ...payloadSchemas, ErrorEnvelope: errorEnvelope },
      messages: {
        ...messages,
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
      },
      messageTraits: {
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
                description:
                  "The merchant's tenant id as entered at activation: route on it, pick its secret.",
              },
              'X-Correlation-Id': {
                type: 'string',
                description: 'Ties the delivery to the business action that produced it; for logs.',
              },
            },
          },
        },
      },
      securitySchemes: {
        apiKey: { type: 'httpApiKey', name: 'X-Api-Key', in: 'header', description: 'Issued at activation.' },
      },
    },
  };
}
