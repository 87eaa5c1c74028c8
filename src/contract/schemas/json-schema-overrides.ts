import type * as z from 'zod/mini';
import { couponSchema } from './entities.js';
import { invoiceEarnedSchema } from './inbound-payloads.js';
import { earnRateSchema, stampRuleSchema } from './outbound-payloads.js';

/*
 * The JSON Schema form of every rule held in a `.check(...)` callback, which zod's `toJSONSchema`
 * cannot see: the contract files add these keywords (draft-07 ones, for the AsyncAPI document
 * too), and test/contract/contract-files.test.ts holds both forms to the same verdict.
 */

/** JSON Schema keywords added to the generated schema of one zod schema. */
export interface JsonSchemaOverride {
  /** Conditions the refinement states, each an `if`/`then` (or any other subschema). */
  readonly allOf: readonly Record<string, unknown>[];
}

/** `if field is value then consequence`, for a rule that depends on an enum field. */
function whenField(field: string, value: string, consequence: Record<string, unknown>) {
  const condition = { type: 'object', properties: { [field]: { const: value } }, required: [field] };
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's keyword; these objects are never awaited
  return { if: condition, then: { type: 'object', ...consequence } };
}
/** The fields are present and not null (their type is already checked by the base schema). */
const present = (...fields: string[]) => ({
  type: 'object',
  required: fields,
  properties: Object.fromEntries(fields.map((field) => [field, { not: { type: 'null' } }])),
});
/** The fields are null or absent. */
const absent = (...fields: string[]) => ({
  type: 'object',
  properties: Object.fromEntries(fields.map((field) => [field, { type: 'null' }])),
});

/**
 * Keyed by the refined schema itself (the object `.check(...)` returned), so a rename or a
 * re-export cannot detach a rule from its schema. A function, not a constant: the runtime never
 * needs these, and a bundler drops an unused function whole.
 */
export function jsonSchemaOverrides(): ReadonlyArray<readonly [z.core.$ZodType, JsonSchemaOverride]> {
  return [
    [
      invoiceEarnedSchema,
      {
        allOf: [
          whenField('earnType', 'Stamps', present('stampCardId')),
          whenField('earnType', 'Points', absent('stampCardId')),
        ],
      },
    ],
    [
      couponSchema,
      {
        allOf: [
          whenField('discountType', 'Percentage', {
            properties: { discountValue: { type: 'number', maximum: 100 } },
          }),
        ],
      },
    ],
    [
      earnRateSchema,
      {
        allOf: [
          whenField('methodType', 'OnPurchase', {
            allOf: [present('pointCostAmount', 'pointCostPoints'), absent('pointsPerVisit')],
          }),
          whenField('methodType', 'OnVisit', {
            allOf: [present('pointsPerVisit'), absent('pointCostAmount', 'pointCostPoints')],
          }),
        ],
      },
    ],
    [
      stampRuleSchema,
      {
        allOf: [
          whenField('mode', 'PerAmount', {
            required: ['amountPerStamp'],
            properties: { amountPerStamp: { type: 'number', exclusiveMinimum: 0 } },
          }),
        ],
      },
    ],
  ];
}
