/**
 * The contract as an AsyncAPI 3 document, seen from the partner's application: it sends events
 * to `POST /api/partner/v1/events` and receives the service's deliveries on its receiver. The
 * schemas are the same zod catalogue as contract/schemas/*.json, in draft-07 (the AsyncAPI
 * Schema Object's dialect), so both say the same thing.
 */
import {
  EVENT_TYPE_NAMES,
  INBOUND_EVENT_TYPES,
  OUTBOUND_EVENT_TYPES,
  schemas,
} from '../src/contract/index.js';
import {
  eventMessages,
  HTTP,
  messageTraits,
  RECEIVER_RESPONSES,
  responseMessages,
  SERVICE_RESPONSES,
} from './contract-files.messages.js';
import { type JsonSchema, schemaId, toJsonSchema } from './contract-files.schemas.js';

const refs = (path: string, names: readonly string[]) => names.map((name) => ({ $ref: `${path}/${name}` }));
const byName = (path: string, names: readonly string[]) =>
  Object.fromEntries(names.map((name) => [name, { $ref: `${path}/${name}` }]));

/** The AsyncAPI 3.0 document of the contract. */
export function asyncApiDocument(): JsonSchema {
  // The components' schemas go without `$schema`: the AsyncAPI document sets their dialect.
  const payloadSchemas: Record<string, JsonSchema> = {};
  for (const eventType of EVENT_TYPE_NAMES) {
    const { $schema: _, ...payload } = toJsonSchema(schemas.payloads[eventType], 'draft-07');
    payloadSchemas[eventType] = payload;
  }
  const { $schema: _, ...errorEnvelope } = toJsonSchema(schemas.errorEnvelope, 'draft-07');

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
        'in contract/schemas/. Where the contract says "not shown", the schemas hold the SDK\'s choices: ' +
        'see "Where the contract is silent" in the README of loyalty-partner-sdk.',
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
        messages: byName('#/components/messages', SERVICE_RESPONSES),
      },
      receiver: {
        address: null,
        title: "POST to the partner's receiver",
        description: 'The registered receiver URL (its address is set at registration, not here).',
        servers: [{ $ref: '#/servers/partnerReceiver' }],
        messages: byName('#/components/messages', OUTBOUND_EVENT_TYPES),
      },
      receiverResponse: {
        address: null,
        description: "The receiver's answer to a delivery, which decides whether the service retries it.",
        servers: [{ $ref: '#/servers/partnerReceiver' }],
        messages: byName('#/components/messages', RECEIVER_RESPONSES),
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
          messages: refs('#/channels/eventsResponse/messages', SERVICE_RESPONSES),
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
        reply: {
          channel: { $ref: '#/channels/receiverResponse' },
          messages: refs('#/channels/receiverResponse/messages', RECEIVER_RESPONSES),
        },
      },
    },
    components: {
      schemas: { ...payloadSchemas, ErrorEnvelope: errorEnvelope },
      messages: { ...eventMessages(), ...responseMessages() },
      messageTraits: messageTraits(),
      securitySchemes: {
        apiKey: { type: 'httpApiKey', name: 'X-Api-Key', in: 'header', description: 'Issued at activation.' },
      },
    },
  };
}
