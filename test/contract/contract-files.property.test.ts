/*
 * The JSON Schema files and the SDK's own parse, held to one verdict on generated and hostile
 * payloads: numbers that are not finite once parsed (1e400), -0, the edges of doubles and safe
 * integers, very long strings, unusual Unicode (lone surrogates, U+0000, astral characters,
 * whitespace of other scripts), extra fields, and null where a field is missing. ajv (2020-12)
 * stands for a validator in another language.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import fc from 'fast-check';
import { EVENT_TYPES, type EventType, schemas } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { contractFiles } from '../../scripts/contract-files.js';
import { schemaId } from '../../scripts/contract-files.schemas.js';
import { EVENT_TYPE_NAMES, parseInboundEnvelope, parsePayload } from '../../src/contract/index.js';
import { envelopeOf } from './contract-files-mutations.js';

const addFormats = addFormatsModule as unknown as <T>(ajv: T) => T;
// strictNumbers off: ajv alone refuses Infinity as a number, but validators in other languages do
// not (Python's jsonschema takes float('inf') for a number, Java's a BigDecimal of 1e400), so
// the files themselves must say "finite".
const ajv = addFormats(new Ajv2020({ strict: true, strictNumbers: false }));
for (const [path, schema] of Object.entries(contractFiles()))
  if (path.startsWith('schemas/')) ajv.addSchema(schema);
const jsonSchema = (name: string) => {
  const validate = ajv.getSchema(schemaId(name));
  if (!validate) throw new Error(`no schema ${name}`);
  return (value: unknown) => validate(value) as boolean;
};

/** The SDK's verdict: its own parse functions, as a sender and a receiver call them. */
const accepts = (parse: () => unknown) => {
  try {
    parse();
    return true;
  } catch {
    return false;
  }
};

/** Both verdicts on one value: the payload alone and in its envelope. */
function verdicts(eventType: EventType, payload: unknown) {
  const envelope = envelopeOf(eventType, payload);
  const inbound = EVENT_TYPES[eventType].direction === 'inbound';
  return {
    payload: {
      sdk: accepts(() => parsePayload(eventType, payload)),
      jsonSchema: jsonSchema(eventType)(payload),
    },
    envelope: inbound
      ? { sdk: accepts(() => parseInboundEnvelope(envelope)), jsonSchema: jsonSchema('envelope')(envelope) }
      : {
          sdk: z.safeParse(schemas.outboundEnvelope, envelope).success,
          jsonSchema: jsonSchema('received-envelope')(envelope),
        },
  };
}

/** Numbers as JSON.parse hands them over: `1e400` is Infinity, `-0` stays -0. */
const hostileNumber = fc.oneof(
  fc.constantFrom(
    JSON.parse('1e400') as number,
    JSON.parse('-1e400') as number,
    JSON.parse('-0') as number,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_SAFE_INTEGER + 1,
    -Number.MAX_SAFE_INTEGER - 1,
    2 ** 63,
    1e21,
    0.1 + 0.2,
    100,
    100.000000000001,
  ),
  fc.double({ noNaN: true }),
  fc.integer(),
);

/** Strings of every kind a JSON parser can produce. */
const hostileString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '\u00a0',
    '\u3000',
    '\u2028',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\ud83d\ude00',
    'e\u0301',
    '\ufeff',
    '\u202e\u0627\u0644\u0639\u0631\u0628\u064a\u0629',
    'x'.repeat(200_000),
    '2026-11-20T09:13:20+00:00',
    '2026-11-20T09:13:20z',
    '2026-11-20T09:13:20.123456789Z',
    '2026-02-29T09:13:20Z',
    '2028-02-29T23:59:59Z',
    '019a9f2e-8b7a-7c3d-9e1f-0a1b2c3d4e5f',
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1000, maxLength: 5000 }),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileNumber,
  hostileString,
  fc.constantFrom(null, true, false, {}, [], [null]),
);

/** Every path to a field of a value, objects and arrays alike. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

type Change = {
  path: readonly (string | number)[];
  kind: 'set' | 'delete' | 'extra';
  value: unknown;
  key: string;
};

const isContainer = (value: unknown): value is Record<string | number, unknown> =>
  typeof value === 'object' && value !== null;

/** The value with one change made; unchanged when an earlier change removed the path. */
function applyChange(base: unknown, { path, kind, value, key }: Change): unknown {
  const copy = structuredClone(base);
  let parent: unknown = copy;
  for (const step of path.slice(0, -1)) parent = isContainer(parent) ? parent[step] : undefined;
  const last = path[path.length - 1];
  if (!isContainer(copy) || !isContainer(parent) || last === undefined || !(last in parent)) return base;
  if (kind === 'set') parent[last] = value;
  else if (kind === 'delete') delete parent[last];
  else {
    const target = parent[last];
    const into = isContainer(target) && !Array.isArray(target) ? target : copy;
    // defineProperty, so that "__proto__" becomes a field as JSON.parse makes it, not a prototype.
    Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

describe('the JSON Schema files and the SDK parse', () => {
  it('refuse a price of 1e400 alike, parsed from the text a sender in another language might write', () => {
    const text = `{"externalProductId":"p-1","name":"Latte","price":1e400,"isActive":true}`;
    const product = JSON.parse(text) as unknown;
    expect(verdicts('ProductSynced', product).payload).toEqual({ sdk: false, jsonSchema: false });
    const negative = JSON.parse(text.replace('1e400', '-1e400')) as unknown;
    expect(verdicts('ProductSynced', negative).payload).toEqual({ sdk: false, jsonSchema: false });
    const zero = JSON.parse(text.replace('1e400', '-0')) as unknown;
    expect(verdicts('ProductSynced', zero).payload).toEqual({ sdk: true, jsonSchema: true });
  });

  it.each(EVENT_TYPE_NAMES.map((eventType) => [eventType]))(
    '%s: agree on every generated change of the sample (set, remove, null, extra field)',
    (eventType) => {
      const sample = samplePayload(eventType);
      const paths = pathsOf(sample);
      const change = fc.record({
        path: paths.length > 0 ? fc.constantFrom(...paths) : fc.constant([]),
        kind: fc.constantFrom('set' as const, 'delete' as const, 'extra' as const),
        value: hostileValue,
        key: fc.constantFrom('extra', '__proto__', 'constructor', 'price', 'eventId', '\u0000'),
      });
      fc.assert(
        fc.property(fc.array(change, { minLength: 1, maxLength: 3 }), (changes) => {
          const payload = changes.reduce<unknown>((value, one) => applyChange(value, one), sample);
          const { payload: alone, envelope } = verdicts(eventType, payload);
          expect(alone.jsonSchema).toBe(alone.sdk);
          expect(envelope.jsonSchema).toBe(envelope.sdk);
        }),
        { numRuns: RUNS },
      );
    },
  );

  it('agree on envelopes whose own fields are changed to hostile values or removed', () => {
    const fields = Object.keys(envelopeOf('InvoiceEarned', {})).filter((field) => field !== 'payload');
    fc.assert(
      fc.property(
        fc.constantFrom(...EVENT_TYPE_NAMES),
        fc.constantFrom(...fields),
        fc.option(hostileValue, { nil: undefined }),
        (eventType, field, value) => {
          const inbound = EVENT_TYPES[eventType].direction === 'inbound';
          const envelope: Record<string, unknown> = envelopeOf(eventType, samplePayload(eventType));
          if (value === undefined) delete envelope[field];
          else envelope[field] = value;
          const sdk = inbound
            ? accepts(() => parseInboundEnvelope(envelope))
            : z.safeParse(schemas.outboundEnvelope, envelope).success;
          expect(jsonSchema(inbound ? 'envelope' : 'received-envelope')(envelope)).toBe(sdk);
        },
      ),
      { numRuns: RUNS },
    );
  });
});
