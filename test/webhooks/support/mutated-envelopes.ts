import fc from 'fast-check';
import { OUTBOUND_EVENT_TYPES } from '../../../src/contract/index.js';
import { outboundEvent } from './deliveries.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// Values at the edges of the contract's field rules, and names of other types and variants.
const EDGE_VALUES: Json[] = [
  null,
  '',
  'x',
  0,
  -1,
  1.5,
  2,
  2 ** 53,
  true,
  [],
  {},
  '2026-11-20T09:13:20Z',
  '2026-11-20 09:13',
  '0b9d7a52-6a43-4a3c-9a5e-2f6f1b1c0d11',
  'Enabled',
  'OnVisit',
  'FreeEntry',
  'PerAmount',
  'StampRule',
  'EarnRate',
  'InvoiceEarned',
  'PointsExpired',
];

// The sample LoyaltyRuleChanged is an EarnRate; this one covers the StampRule variant.
const stampRule = () =>
  outboundEvent('LoyaltyRuleChanged', {
    externalStoreId: 'store-7',
    ruleType: 'StampRule',
    ruleVersion: 5,
    effectiveFrom: '2026-11-20T00:00:00Z',
    payload: {
      stampCardId: 'card-1',
      name: 'Coffee card',
      mode: 'PerVisit',
      minInvoiceAmount: 15,
      amountPerStamp: null,
      cooldownDays: 1,
      isActive: true,
    },
  });

const bases = [...OUTBOUND_EVENT_TYPES.map((eventType) => () => outboundEvent(eventType)), stampRule];

/** Every path to a value inside `value`, the root excluded, parents before children. */
function pathsOf(value: Json, prefix: string[] = []): string[][] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    [...prefix, key],
    ...pathsOf(child, [...prefix, key]),
  ]);
}

const mutation = fc.record({
  at: fc.nat(),
  op: fc.constantFrom('delete', 'set', 'add'),
  value: fc.oneof(fc.constantFrom(...EDGE_VALUES), fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>),
});

type Mutation = typeof mutation extends fc.Arbitrary<infer T> ? T : never;

function mutate(envelope: Json, { at, op, value }: Mutation): void {
  const paths = pathsOf(envelope);
  const path = paths[at % paths.length] ?? [];
  const key = path.at(-1) ?? '';
  const parent = path
    .slice(0, -1)
    .reduce((node, step) => (node as Record<string, Json>)[step] as Json, envelope);
  const target = parent as Record<string, Json>;
  if (op === 'delete') delete target[key];
  else if (op === 'set') target[key] = value;
  else target[`extra_${key}`] = value;
}

/**
 * A delivered envelope of any outbound type, valid or broken by up to three changes anywhere in
 * it (a field deleted, set to an edge value or to any JSON, or an unknown field added), so that
 * most are refused for one reason or another and some pass.
 */
export const mutatedEnvelope = fc
  .record({
    base: fc.constantFrom(...bases),
    // The three ways a correlationId may come: a GUID, null (meaning none) or left out.
    correlation: fc.constantFrom('guid', 'null', 'absent'),
    mutations: fc.array(mutation, { maxLength: 3 }),
  })
  .map(({ base, correlation, mutations }) => {
    const envelope = JSON.parse(JSON.stringify(base())) as Record<string, Json>;
    if (correlation === 'guid') envelope.correlationId = '7d9f3c2e-41a8-4f0e-9b6d-2c5e8a1f4b30';
    else if (correlation === 'null') envelope.correlationId = null;
    else delete envelope.correlationId;
    for (const change of mutations) mutate(envelope, change);
    return envelope as object;
  });
