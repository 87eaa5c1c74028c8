import { Parser } from '@asyncapi/parser';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { ERROR_CODES, EVENT_TYPES, type EventType, schemas } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { contractFiles } from '../../scripts/contract-files.js';
import { isRefined, type JsonSchema, schemaId, toJsonSchema } from '../../scripts/contract-files.schemas.js';
import { EVENT_TYPE_NAMES, INBOUND_EVENT_TYPES, OUTBOUND_EVENT_TYPES } from '../../src/contract/index.js';
import { jsonSchemaOverrides } from '../../src/contract/schemas/json-schema-overrides.js';
import { envelopeOf, mutationsOf } from './contract-files-mutations.js';

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what arrives.
const addFormats = addFormatsModule as unknown as <T>(ajv: T) => T;

const files = contractFiles();
const ajv = addFormats(new Ajv2020({ strict: true }));
for (const [path, schema] of Object.entries(files)) if (path.startsWith('schemas/')) ajv.addSchema(schema);
const jsonSchema = (name: string) => {
  const validate = ajv.getSchema(schemaId(name));
  if (!validate) throw new Error(`no schema ${name}`);
  return (value: unknown) => validate(value) as boolean;
};

/** Payloads beyond the one sample per type, so that each side of every conditional rule is a base. */
const MORE_PAYLOADS: { [K in EventType]?: unknown[] } = {
  InvoiceEarned: [{ ...samplePayload('InvoiceEarned'), earnType: 'Stamps', stampCardId: 'card-coffee' }],
  CouponSynced: [{ ...samplePayload('CouponSynced'), discountType: 'Percentage', discountValue: 100 }],
  LoyaltyRuleChanged: [
    {
      ...samplePayload('LoyaltyRuleChanged'),
      payload: {
        methodType: 'OnVisit',
        pointCostAmount: null,
        pointCostPoints: null,
        pointsPerVisit: 5,
        minimumPurchase: 0,
        isActive: true,
      },
    },
    {
      ...samplePayload('LoyaltyRuleChanged'),
      ruleType: 'StampRule',
      payload: {
        stampCardId: 'card-coffee',
        name: 'Coffee card',
        mode: 'PerAmount',
        minInvoiceAmount: 10,
        amountPerStamp: 25,
        cooldownDays: null,
        isActive: true,
      },
    },
    {
      ...samplePayload('LoyaltyRuleChanged'),
      ruleType: 'StampRule',
      payload: {
        stampCardId: 'card-tea',
        name: 'Tea',
        mode: 'PerVisit',
        minInvoiceAmount: 0,
        isActive: true,
      },
    },
  ],
};
const payloadsOf = (eventType: EventType): unknown[] => [
  samplePayload(eventType),
  ...(MORE_PAYLOADS[eventType] ?? []),
];

interface Disagreement {
  against: string;
  mutation: string;
  zod: boolean;
  jsonSchema: boolean;
}

/** Runs a value and its one-field mutations through both validators; returns where they differ. */
function compare(against: string, value: unknown, zodSchema: z.core.$ZodType, json: (v: unknown) => boolean) {
  const disagreements: Disagreement[] = [];
  let count = 0;
  for (const { name, value: mutated } of [{ name: 'unchanged', value }, ...mutationsOf(value)]) {
    count++;
    const byZod = z.safeParse(zodSchema, mutated).success;
    const byJson = json(mutated);
    if (byZod !== byJson) disagreements.push({ against, mutation: name, zod: byZod, jsonSchema: byJson });
  }
  return { disagreements, count };
}

describe('the contract files', () => {
  it('are one AsyncAPI document and a JSON Schema per envelope and per payload, self-contained, each with a stable $id', () => {
    expect(Object.keys(files).sort()).toEqual(
      [
        'asyncapi.json',
        'schemas/envelope.json',
        'schemas/received-envelope.json',
        'schemas/received-envelope-header.json',
        'schemas/error-envelope.json',
        ...EVENT_TYPE_NAMES.map((eventType) => `schemas/${eventType}.json`),
      ].sort(),
    );
    const schemaFiles = Object.entries(files).filter(([path]) => path.startsWith('schemas/'));
    expect(schemaFiles.filter(([, schema]) => JSON.stringify(schema).includes('$ref'))).toEqual([]);
    expect(files['schemas/InvoiceEarned.json']).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $id: 'urn:loyalty-partner-sdk:contract:v1:schemas:InvoiceEarned',
    });
  });

  it('accept every sample, and agree with the SDK on every one-field mutation of it', () => {
    const disagreements: Disagreement[] = [];
    let count = 0;
    const add = (result: ReturnType<typeof compare>) => {
      disagreements.push(...result.disagreements);
      count += result.count;
    };
    for (const eventType of EVENT_TYPE_NAMES) {
      for (const payload of payloadsOf(eventType)) {
        expect(jsonSchema(eventType)(payload), `${eventType} sample`).toBe(true);
        add(compare(`${eventType}.json`, payload, schemas.payloads[eventType], jsonSchema(eventType)));
        const inbound = EVENT_TYPES[eventType].direction === 'inbound';
        add(
          compare(
            `${inbound ? 'envelope' : 'received-envelope'}.json with ${eventType}`,
            envelopeOf(eventType, payload),
            inbound ? schemas.envelope : schemas.outboundEnvelope,
            jsonSchema(inbound ? 'envelope' : 'received-envelope'),
          ),
        );
      }
    }
    // The header judges no payload: any event type, known or not, with any payload object.
    for (const eventType of ['IntegrationStatusChanged', 'InvoiceEarned', 'SomethingNew']) {
      const envelope = { ...envelopeOf('IntegrationStatusChanged', { status: 'Enabled' }), eventType };
      const header = jsonSchema('received-envelope-header');
      add(
        compare(`received-envelope-header.json with ${eventType}`, envelope, schemas.envelopeHeader, header),
      );
    }
    const error = { code: 'INVALID_SIGNATURE', message: 'No signature matched', correlationId: 'corr-1' };
    add(compare('error-envelope.json', error, schemas.errorEnvelope, jsonSchema('error-envelope')));

    expect(disagreements).toEqual([]);
    expect(count).toBeGreaterThan(20_000);
  });

  it('hold the rules zod writes as refinements: stampCardId exactly when earnType is Stamps', () => {
    const invoice = jsonSchema('InvoiceEarned');
    const sample = samplePayload('InvoiceEarned');
    expect(invoice({ ...sample, earnType: 'Stamps', stampCardId: null })).toBe(false);
    expect(invoice({ ...sample, earnType: 'Stamps', stampCardId: undefined })).toBe(false);
    expect(invoice({ ...sample, earnType: 'Stamps', stampCardId: 'card-coffee' })).toBe(true);
    expect(invoice({ ...sample, earnType: 'Points', stampCardId: 'card-coffee' })).toBe(false);
    // What a straight z.toJSONSchema gives: the rule is lost.
    const straight = new Ajv2020({ strict: false }).compile(z.toJSONSchema(schemas.payloads.InvoiceEarned));
    expect(straight({ ...sample, earnType: 'Stamps', stampCardId: null })).toBe(true);
  });

  it('refuse to generate a schema whose refinement has no JSON Schema form', () => {
    const refined = z.object({ a: z.string() }).check(() => {});
    expect(() => toJsonSchema(z.object({ inner: refined }), 'draft-2020-12')).toThrow(
      /refines with \.check\(\.\.\.\) but has no JSON Schema form/,
    );
  });

  it('hold no override for a schema that no longer refines', () => {
    expect(jsonSchemaOverrides().filter(([schema]) => !isRefined(schema))).toEqual([]);
    expect(jsonSchemaOverrides().length).toBe(4);
  });
});

describe('the AsyncAPI document', () => {
  let parsed: Awaited<ReturnType<Parser['parse']>>;
  let document: NonNullable<typeof parsed.document>;
  beforeAll(async () => {
    parsed = await new Parser().parse(JSON.stringify(files['asyncapi.json']));
    if (parsed.document) document = parsed.document;
  });

  it('parses with @asyncapi/parser without an error or a warning', () => {
    const { diagnostics } = parsed;
    expect(diagnostics.filter((diagnostic) => diagnostic.severity <= 1)).toEqual([]);
    expect(document.version()).toMatch(/^3\./);
    expect(document.messages().length).toBe(16 + 5 + 3);
  });

  it('sends the 12 inbound types to POST /api/partner/v1/events and receives the 4 outbound ones', () => {
    const names = (operationId: string) =>
      document
        ?.operations()
        .get(operationId)
        ?.messages()
        .all()
        .map((message) => message.name());
    expect(document.channels().get('events')?.address()).toBe('/api/partner/v1/events');
    expect(names('sendEvent')).toEqual([...INBOUND_EVENT_TYPES]);
    expect(names('receiveDelivery')).toEqual([...OUTBOUND_EVENT_TYPES]);
  });

  it('lists every error code of the catalogue under the status the service answers it with', () => {
    const listed: Record<string, number> = {};
    for (const message of document.operations().get('sendEvent')?.reply()?.messages().all() ?? []) {
      const status = message.bindings().get('http')?.value<{ statusCode: number }>().statusCode;
      const codes = message.extensions().get('x-error-codes')?.value() ?? {};
      for (const code of Object.keys(codes)) listed[code] = status ?? 0;
    }
    expect(listed).toEqual(
      Object.fromEntries(Object.entries(ERROR_CODES).map(([code, info]) => [code, info.status])),
    );
  });

  it('gives each message the envelope its JSON Schema file holds, in draft-07', () => {
    const draft07 = addFormats(new Ajv({ strict: false }));
    const disagreements: Disagreement[] = [];
    for (const eventType of EVENT_TYPE_NAMES) {
      const message = document
        ?.messages()
        .all()
        .find((candidate) => candidate.name() === eventType);
      const validate = draft07.compile(message?.payload()?.json() as JsonSchema);
      const inbound = EVENT_TYPES[eventType].direction === 'inbound';
      for (const payload of payloadsOf(eventType)) {
        const { disagreements: found } = compare(
          `asyncapi ${eventType}`,
          envelopeOf(eventType, payload),
          inbound ? schemas.envelope : schemas.outboundEnvelope,
          (value) => validate(value) as boolean,
        );
        disagreements.push(...found);
      }
    }
    expect(disagreements).toEqual([]);
    expect(toJsonSchema(schemas.errorEnvelope, 'draft-07').$schema).toBe(
      'http://json-schema.org/draft-07/schema#',
    );
  });
});
