import {
  type BatchEventType,
  EVENT_TYPES,
  INBOUND_EVENT_TYPES,
  type InboundEventType,
  schemas,
} from '../../contract/index.js';

/** How a CSV cell becomes a JSON value: the type of the contract field it fills. */
export type FieldKind = 'number' | 'boolean' | 'text';

/** What `backfill <entity>` sends: the batch type, its single-entity type and the item's fields. */
export interface BackfillTarget {
  /** `customers`, `branches`, `products`, `coupons`. */
  name: string;
  batchType: BatchEventType;
  singleType: InboundEventType;
  /** Every field of the item, with the type a CSV cell is converted to. */
  fields: ReadonlyMap<string, FieldKind>;
}

interface ZodLike {
  _zod?: { def?: { type?: string; innerType?: ZodLike; shape?: Record<string, ZodLike> } };
}

// Looks through `.optional()` and `.default()` to the type the field holds.
function kindOf(schema: ZodLike | undefined): FieldKind {
  let def = schema?._zod?.def;
  while (def && (def.type === 'optional' || def.type === 'default' || def.type === 'nullable')) {
    def = def.innerType?._zod?.def;
  }
  return def?.type === 'number' ? 'number' : def?.type === 'boolean' ? 'boolean' : 'text';
}

const isBatch = (type: InboundEventType): type is BatchEventType => type.endsWith('SyncedBatch');

/** The backfill targets: every batch event type (`CustomersSyncedBatch` -> `customers`) and its fields. */
export const BACKFILL_TARGETS: ReadonlyMap<string, BackfillTarget> = new Map(
  INBOUND_EVENT_TYPES.filter(isBatch).map((batchType) => {
    const singleType = (EVENT_TYPES[batchType] as { singleEventType: InboundEventType }).singleEventType;
    // The definition, not the classic API: the schemas may be built with zod or zod/mini.
    const shape = (schemas.payloads[singleType] as ZodLike)._zod?.def?.shape ?? {};
    const fields = new Map(Object.entries(shape).map(([field, schema]) => [field, kindOf(schema)]));
    const name = batchType.replace(/SyncedBatch$/, '').toLowerCase();
    return [name, { name, batchType, singleType, fields }];
  }),
);
