/**
 * The 16 event types of the Partner Event Interface (spec section 6.1), as one `as const` list
 * per direction so every other table can be typed from them and fail to compile when one is missing.
 * These twelve are the ones the partner posts.
 */
export const INBOUND_EVENT_TYPES = [
  'InvoiceEarned',
  'InvoiceRefunded',
  'CouponUsed',
  'CouponUsageCancelled',
  'BranchSynced',
  'CustomerSynced',
  'ProductSynced',
  'CouponSynced',
  'BranchesSyncedBatch',
  'CustomersSyncedBatch',
  'ProductsSyncedBatch',
  'CouponsSyncedBatch',
] as const;

/**
 * Event types the service sends to the partner's receiver as signed webhooks.
 *
 * @example
 * ```ts
 * import { OUTBOUND_EVENT_TYPES } from 'loyalty-partner-sdk/webhooks';
 * OUTBOUND_EVENT_TYPES.includes('LoyaltyRuleChanged'); // true
 * ```
 */
export const OUTBOUND_EVENT_TYPES = [
  'RefundReversalCompleted',
  'LoyaltyRuleChanged',
  'RedemptionExpiredOrCancelled',
  'IntegrationStatusChanged',
] as const;

/** All 16 event types, partner-to-service first. */
export const EVENT_TYPE_NAMES = [...INBOUND_EVENT_TYPES, ...OUTBOUND_EVENT_TYPES] as const;

/** Any of the 16 event types of the contract. */
export type EventType = (typeof EVENT_TYPE_NAMES)[number];
/** An event type the partner posts to `POST /api/partner/v1/events`. */
export type InboundEventType = (typeof INBOUND_EVENT_TYPES)[number];
/** An event type the service delivers to the partner's receiver. */
export type OutboundEventType = (typeof OUTBOUND_EVENT_TYPES)[number];
/** The four batch sync event types (at most 500 items each). */
export type BatchEventType = Extract<InboundEventType, `${string}Batch`>;

/** The `entityType` values of the envelope (spec section 2.1). */
export const ENTITY_TYPES = [
  'Invoice',
  'Redemption',
  'LoyaltyRule',
  'Branch',
  'Customer',
  'Product',
  'Coupon',
  'Integration',
] as const;
/** One of the eight entity types of the envelope. */
export type EntityType = (typeof ENTITY_TYPES)[number];

/** Who sends an event: `inbound` is partner to service, `outbound` is service to partner. */
export type EventDirection = 'inbound' | 'outbound';
/**
 * `Available` is processed now; `Planned` is accepted at the wire but answered with a retryable
 * 503 `EVENT_HANDLER_NOT_REGISTERED` until its handler ships; `Outbound` is sent by the service.
 */
export type EventAvailability = 'Available' | 'Planned' | 'Outbound';

/** What the catalogue knows about one event type. */
export interface EventTypeInfo {
  readonly direction: EventDirection;
  readonly availability: EventAvailability;
  /** For outbound types: whether the service's webhook catalogue emits it yet. */
  readonly emitted?: boolean;
  readonly entityType: EntityType;
  /**
   * The payload field whose value becomes the envelope's `entityId`. For a batch it names the
   * field of each item: a batch carries the id of its first item. `null` when the payload has no
   * such field (IntegrationStatusChanged): the caller passes `entityId` explicitly.
   */
  readonly entityIdField: string | null;
  /** For batch types: the single-entity type each item corresponds to. */
  readonly singleEventType?: InboundEventType;
  /**
   * Inbound types: the entities the event changes. Two events of a tenant keep their enqueue
   * order when one changes a key the other changes or needs (the outbox's causal order).
   */
  readonly changes?: readonly EntityKeyField[];
  /** Inbound types: the entities the event reads but does not change (a sale needs its branch). */
  readonly needs?: readonly EntityKeyField[];
  readonly description: string;
}

/**
 * Where an event names one entity: the entity type and the payload field holding its id. In a
 * batch (a type with `singleEventType`) the field is read from every item of `items`.
 */
export interface EntityKeyField {
  readonly entity: EntityType;
  readonly field: string;
}

/**
 * A single-entity sync: available now, it changes the one entity it names and needs no other.
 * Free of side effects, so that a bundle that does not read the catalogue drops it.
 */
/* @__NO_SIDE_EFFECTS__ */ function synced<E extends EntityType, F extends string, D extends string>(
  entityType: E,
  entityIdField: F,
  description: D,
) {
  const changes = [{ entity: entityType, field: entityIdField }] as const;
  return {
    direction: 'inbound',
    availability: 'Available',
    entityType,
    entityIdField,
    changes,
    needs: [],
    description,
  } as const;
}

/** The batch of a single-entity sync: planned, up to 500 of its entities in `items`. */
/* @__NO_SIDE_EFFECTS__ */ function syncedBatch<
  S extends InboundEventType,
  E extends EntityType,
  F extends string,
  N extends string,
>(singleEventType: S, entityType: E, entityIdField: F, plural: N) {
  return {
    ...synced(entityType, entityIdField, `Up to 500 ${plural}, for a backfill or a reconciliation.`),
    availability: 'Planned',
    singleEventType,
  } as const;
}

/**
 * The event catalogue: direction, availability, entity type and entity-id field of every type.
 *
 * @example
 * ```ts
 * import { EVENT_TYPES } from 'loyalty-partner-sdk';
 * EVENT_TYPES.InvoiceRefunded.availability; // 'Planned'
 * EVENT_TYPES.LoyaltyRuleChanged.direction; // 'outbound'
 * ```
 */
export const EVENT_TYPES = {
  InvoiceEarned: {
    direction: 'inbound',
    availability: 'Available',
    entityType: 'Invoice',
    entityIdField: 'externalInvoiceId',
    changes: [
      { entity: 'Customer', field: 'externalCustomerId' },
      { entity: 'Invoice', field: 'externalInvoiceId' },
    ],
    needs: [{ entity: 'Branch', field: 'externalBranchId' }],
    description: 'A sale earned points or stamps; the service computes how many.',
  },
  InvoiceRefunded: {
    direction: 'inbound',
    availability: 'Planned',
    entityType: 'Invoice',
    entityIdField: 'externalInvoiceId',
    changes: [
      { entity: 'Invoice', field: 'externalOriginalInvoiceId' },
      { entity: 'Invoice', field: 'externalInvoiceId' },
    ],
    needs: [],
    description: 'A refund; the service reverses the original earn once the handler ships.',
  },
  CouponUsed: {
    direction: 'inbound',
    availability: 'Available',
    entityType: 'Coupon',
    entityIdField: 'externalCouponId',
    changes: [
      { entity: 'Customer', field: 'externalCustomerId' },
      { entity: 'Invoice', field: 'externalInvoiceId' },
    ],
    needs: [{ entity: 'Coupon', field: 'externalCouponId' }],
    description: 'A coupon was redeemed on an invoice.',
  },
  CouponUsageCancelled: {
    direction: 'inbound',
    availability: 'Available',
    entityType: 'Coupon',
    entityIdField: 'externalCouponId',
    changes: [{ entity: 'Invoice', field: 'externalInvoiceId' }],
    needs: [{ entity: 'Coupon', field: 'externalCouponId' }],
    description: 'Reverses a previous CouponUsed.',
  },
  BranchSynced: synced('Branch', 'externalBranchId', 'Creates or updates one branch.'),
  CustomerSynced: synced('Customer', 'externalCustomerId', 'Creates or updates one customer.'),
  ProductSynced: synced(
    'Product',
    'externalProductId',
    'Creates, updates or (isActive: false) deactivates one product.',
  ),
  CouponSynced: synced('Coupon', 'externalCouponId', 'Creates or updates one coupon.'),
  BranchesSyncedBatch: syncedBatch('BranchSynced', 'Branch', 'externalBranchId', 'branches'),
  CustomersSyncedBatch: syncedBatch('CustomerSynced', 'Customer', 'externalCustomerId', 'customers'),
  ProductsSyncedBatch: syncedBatch('ProductSynced', 'Product', 'externalProductId', 'products'),
  CouponsSyncedBatch: syncedBatch('CouponSynced', 'Coupon', 'externalCouponId', 'coupons'),
  RefundReversalCompleted: {
    direction: 'outbound',
    availability: 'Outbound',
    emitted: false,
    entityType: 'Invoice',
    entityIdField: 'externalInvoiceId',
    description: 'Outcome of a refund reversal (not emitted yet).',
  },
  LoyaltyRuleChanged: {
    direction: 'outbound',
    availability: 'Outbound',
    emitted: true,
    entityType: 'LoyaltyRule',
    entityIdField: 'externalStoreId',
    description: 'The merchant changed an earn rate or a stamp rule; apply only a newer ruleVersion.',
  },
  RedemptionExpiredOrCancelled: {
    direction: 'outbound',
    availability: 'Outbound',
    emitted: false,
    entityType: 'Redemption',
    entityIdField: 'redemptionId',
    description: 'A pending redemption expired or was cancelled by staff (not emitted yet).',
  },
  IntegrationStatusChanged: {
    direction: 'outbound',
    availability: 'Outbound',
    emitted: true,
    entityType: 'Integration',
    entityIdField: null,
    description: 'The merchant enabled, disabled or disconnected the integration.',
  },
} as const satisfies Record<EventType, EventTypeInfo>;

// One set per direction: a receiver asks on every delivery, with an eventType fresh from
// JSON.parse, and one lookup answers it.
const inboundSet: ReadonlySet<string> = new Set(INBOUND_EVENT_TYPES);
const outboundSet: ReadonlySet<string> = new Set(OUTBOUND_EVENT_TYPES);

/** Narrows an unknown string to one of the 16 event types. */
export function isEventType(value: unknown): value is EventType {
  return isInboundEventType(value) || isOutboundEventType(value);
}

/** Narrows to an event type the partner may post. */
export function isInboundEventType(value: unknown): value is InboundEventType {
  return typeof value === 'string' && inboundSet.has(value);
}

/**
 * Narrows to an event type the service delivers as a webhook.
 *
 * @example
 * ```ts
 * import { isOutboundEventType } from 'loyalty-partner-sdk/webhooks';
 * isOutboundEventType('IntegrationStatusChanged'); // true
 * ```
 */
export function isOutboundEventType(value: unknown): value is OutboundEventType {
  return typeof value === 'string' && outboundSet.has(value);
}
