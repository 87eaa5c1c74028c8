import { ERROR_CODES, EVENT_TYPES, type EventType } from 'loyalty-partner-sdk';
import { ENTITY_TYPES, EVENT_TYPE_NAMES, MAX_BATCH_ITEMS } from '../../src/contract/index.js';

/** A value changed in one place, named by where and how (`payload.earnType = "Stamps"`). */
export interface Mutation {
  name: string;
  value: unknown;
}

/** Every enum value of the payloads, so that a field may be switched to another value of its enum. */
const PAYLOAD_ENUM_VALUES = [
  ...['Points', 'Stamps', 'Pos', 'Kiosk', 'FixedAmount', 'Percentage', 'EarnRate', 'StampRule'],
  ...['OnPurchase', 'OnVisit', 'FreeEntry', 'PerVisit', 'PerAmount', 'Expired', 'Cancelled'],
  ...['Reversed', 'OverrideApplied', 'NegativeBalanceByPolicy', 'Enabled', 'Disabled', 'Disconnected'],
];

/** What each field is set to in turn: wrong types, edge values, other formats, other enum values. */
const REPLACEMENTS: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  42,
  100.5,
  101,
  2 ** 53,
  '',
  '   ',
  'other',
  '42',
  'true',
  {},
  [],
  ['other'],
  '3b241101-e2bb-4255-8caf-4136c566a962', // a UUID v4
  '019a9f2e-8b7a-7c3d-9e1f-0a1b2c3d4e60', // a UUID v7
  '2026-11-20T12:13:20+03:00',
  '2026-11-20T09:13:20.123Z',
  '2026-02-30T09:13:20Z',
  '2026-11-20',
  'Partner',
  'Loyalty',
  ...ENTITY_TYPES,
  ...EVENT_TYPE_NAMES,
  ...PAYLOAD_ENUM_VALUES,
  ...Object.keys(ERROR_CODES).slice(0, 3),
];

const label = (value: unknown) =>
  Array.isArray(value) && value.length > 3 ? `[${value.length} items]` : JSON.stringify(value);

/** A copy of `root` with the value at `path` replaced (`undefined` removes it). */
function withValue(root: unknown, path: readonly (string | number)[], value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(root)) {
    const copy = [...root];
    if (value === undefined && rest.length === 0) copy.splice(head as number, 1);
    else copy[head as number] = withValue(root[head as number], rest, value);
    return copy;
  }
  const copy = { ...(root as Record<string, unknown>) };
  if (value === undefined && rest.length === 0) delete copy[head];
  else copy[head] = withValue(copy[head], rest, value);
  return copy;
}

/**
 * Every one-field mutation of a JSON value: each field (at any depth) removed and set to each of
 * the replacements; an unknown field added to each object; each array emptied, cut by one item
 * and grown past the batch limit.
 */
export function mutationsOf(root: unknown): Mutation[] {
  const mutations: Mutation[] = [];
  const visit = (value: unknown, path: (string | number)[]) => {
    const where = path.join('.') || '(root)';
    if (path.length > 0) {
      mutations.push({ name: `${where} removed`, value: withValue(root, path, undefined) });
      for (const replacement of REPLACEMENTS) {
        mutations.push({
          name: `${where} = ${label(replacement)}`,
          value: withValue(root, path, replacement),
        });
      }
    }
    if (Array.isArray(value)) {
      const tooMany = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => value[0]);
      mutations.push({ name: `${where} over the limit`, value: withValue(root, path, tooMany) });
      for (const [index, item] of value.entries()) visit(item, [...path, index]);
    } else if (value !== null && typeof value === 'object') {
      const added = { ...value, unexpectedField: 'x' };
      mutations.push({ name: `${where} with an unknown field`, value: withValue(root, path, added) });
      for (const [key, field] of Object.entries(value)) visit(field, [...path, key]);
    }
  };
  visit(root, []);
  return mutations;
}

/** A complete envelope around `payload`, every other field fixed and valid for `eventType`. */
export function envelopeOf(eventType: EventType, payload: unknown) {
  return {
    eventId: '019a9f2e-8b7a-7c3d-9e1f-0a1b2c3d4e5f',
    occurredAt: '2026-11-20T09:13:20Z',
    entityType: EVENT_TYPES[eventType].entityType,
    entityId: 'entity-1',
    sourceSystem: EVENT_TYPES[eventType].direction === 'inbound' ? 'Partner' : 'Loyalty',
    schemaVersion: 1,
    correlationId: '5f0c3b8e-1d2a-4b6c-8e9f-0a1b2c3d4e5f',
    eventType,
    payload,
  };
}
