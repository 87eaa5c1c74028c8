/**
 * The contract as JSON Schema files, generated from the zod catalogue the SDK validates with:
 * `z.toJSONSchema` for what zod can say as keywords, plus src/contract/schemas/json-schema-overrides.ts
 * for the rules it holds in `.check(...)` callbacks. scripts/contract-files.mjs writes the result
 * to `dist/contract/` (`loyalty-partner-sdk/contract/...`); the tests call these functions directly.
 */
import * as z from 'zod';
import {
  ERROR_CODES,
  EVENT_TYPE_NAMES,
  EVENT_TYPES,
  type EventType,
  schemas,
} from '../src/contract/index.js';
import {
  type JsonSchemaOverride,
  jsonSchemaOverrides,
} from '../src/contract/schemas/json-schema-overrides.js';

/** A JSON Schema document or subschema, as plain JSON. */
export type JsonSchema = { [keyword: string]: unknown };
/** `draft-2020-12` for the schema files, `draft-07` for the AsyncAPI document's schemas. */
export type Target = 'draft-2020-12' | 'draft-07';

/** Stable `$id`s: an identifier, not an address to fetch (every file is self-contained). */
export const schemaId = (name: string) => `urn:loyalty-partner-sdk:contract:v1:schemas:${name}`;

const overrides = new Map<unknown, JsonSchemaOverride>(jsonSchemaOverrides());

/** Whether a zod schema holds a rule in a `.check(...)` callback, which `z.toJSONSchema` cannot see. */
export function isRefined(schema: z.core.$ZodType): boolean {
  return (schema._zod.def.checks ?? []).some((check) => check._zod.def.check === 'custom');
}

/**
 * zod refuses a number that is not finite (`1e400` parses to Infinity in JavaScript and Python,
 * and stays a huge finite decimal in Java's BigDecimal); JSON Schema's `type: number` does not.
 * Bounds at the largest finite double say the same in every language: a number beyond them is
 * refused wherever it is parsed. Bounds zod already writes (integers stay safe) are kept.
 */
function finiteBounds(jsonSchema: JsonSchema): void {
  if (jsonSchema.type !== 'number' && jsonSchema.type !== 'integer') return;
  jsonSchema.minimum ??= -Number.MAX_VALUE;
  jsonSchema.maximum ??= Number.MAX_VALUE;
}

/** `z.toJSONSchema` with the refinements written in, for the schema as it arrives on the wire. */
export function toJsonSchema(schema: z.core.$ZodType, target: Target): JsonSchema {
  return z.toJSONSchema(schema, {
    target,
    io: 'input',
    unrepresentable: 'throw',
    override({ zodSchema, jsonSchema }) {
      finiteBounds(jsonSchema);
      const override = overrides.get(zodSchema);
      if (override) {
        if ('allOf' in jsonSchema) throw new Error('contract files: an override would replace an allOf');
        Object.assign(jsonSchema, structuredClone(override));
      } else if (isRefined(zodSchema)) {
        throw new Error(
          'contract files: a zod schema refines with .check(...) but has no JSON Schema form; ' +
            'add it to src/contract/schemas/json-schema-overrides.ts',
        );
      }
    },
  }) as JsonSchema;
}

function document(name: string, title: string, description: string, schema: z.core.$ZodType): JsonSchema {
  const { $schema, ...body } = toJsonSchema(schema, 'draft-2020-12');
  return { $schema, $id: schemaId(name), title, description, ...body };
}

function payloadDescription(eventType: EventType): string {
  const info = EVENT_TYPES[eventType];
  const direction =
    info.direction === 'inbound'
      ? 'the partner posts to POST /api/partner/v1/events'
      : "the service delivers to the partner's receiver";
  return `Payload of ${eventType} (${info.availability}; ${direction}). ${info.description}`;
}

/**
 * Every JSON Schema file of `contract/schemas/`, by file name: the envelope the partner sends,
 * the envelope its receiver gets (and its fields alone), the error envelope and one file per
 * event type's payload.
 */
export function jsonSchemaFiles(): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = {
    'envelope.json': document(
      'envelope',
      'Envelope the partner sends',
      'The body of POST /api/partner/v1/events: the envelope of spec section 2.1 with the payload of ' +
        'its eventType. Strict: unknown fields are refused.',
      schemas.envelope,
    ),
    'received-envelope.json': document(
      'received-envelope',
      'Envelope the partner receives',
      "The body of a delivery to the partner's receiver. Loose: unknown fields pass, so a newer " +
        'service that adds a field does not break a receiver.',
      schemas.outboundEnvelope,
    ),
    'received-envelope-header.json': document(
      'received-envelope-header',
      'Envelope fields of a delivery, payload unjudged',
      'What a receiver checks first: a body that passes but names an eventType this version does not ' +
        'list, or a schemaVersion other than 1, comes from a newer service; acknowledge it (2xx) and set ' +
        'it aside rather than refuse it. Otherwise validate the whole body with received-envelope.json.',
      schemas.envelopeHeader,
    ),
    'error-envelope.json': document(
      'error-envelope',
      'Error envelope',
      'The body of every non-success response (spec section 2.4). Branch on code; a code this ' +
        'version does not list may appear in a newer service: fall back to the HTTP status then.',
      schemas.errorEnvelope,
    ),
  };
  // The codes are annotations, not an enum: a newer service may answer with a code not listed.
  const errorFields = files['error-envelope.json']!.properties as Record<string, JsonSchema>;
  errorFields.code = { ...errorFields.code, examples: Object.keys(ERROR_CODES) };
  for (const eventType of EVENT_TYPE_NAMES) {
    files[`${eventType}.json`] = document(
      eventType,
      `${eventType} payload`,
      payloadDescription(eventType),
      schemas.payloads[eventType],
    );
  }
  return files;
}
