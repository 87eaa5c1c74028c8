// zod/mini (see primitives.ts): the receiver validates deliveries with these schemas on the edge.
import * as z from 'zod/mini';
import { amount, count, fieldIssue, id, integer, utcTimestamp } from './primitives.js';

/*
 * Payloads the partner RECEIVES. They are loose objects: unknown extra fields pass through, so a
 * newer service that adds a field never breaks an older receiver. Required fields stay required.
 */

const earnMethod = z.enum(['OnPurchase', 'OnVisit'], {
  error: (issue) =>
    issue.input === 'FreeEntry'
      ? 'FreeEntry is not a valid partner earn method; the service rejects it'
      : 'must be OnPurchase or OnVisit',
});

function requireSet(ctx: z.core.ParsePayload<Record<string, unknown>>, field: string, when: string): void {
  if (ctx.value[field] === null || ctx.value[field] === undefined)
    fieldIssue(ctx, field, `is required when ${when}`);
}

function requireNull(ctx: z.core.ParsePayload<Record<string, unknown>>, field: string, when: string): void {
  if (ctx.value[field] !== null && ctx.value[field] !== undefined)
    fieldIssue(ctx, field, `must be null when ${when}`);
}

/** EarnRate body (2.3): cost fields for `OnPurchase`, `pointsPerVisit` for `OnVisit`. */
export const earnRateSchema = z
  .looseObject({
    methodType: earnMethod,
    pointCostAmount: z.nullish(amount),
    pointCostPoints: z.nullish(count),
    pointsPerVisit: z.nullish(count),
    minimumPurchase: amount,
    isActive: z.boolean(),
  })
  // A rule in a callback: its JSON Schema form is in json-schema-overrides.ts.
  .check((ctx) => {
    if (ctx.value.methodType === 'OnPurchase') {
      requireSet(ctx, 'pointCostAmount', 'methodType is OnPurchase');
      requireSet(ctx, 'pointCostPoints', 'methodType is OnPurchase');
      requireNull(ctx, 'pointsPerVisit', 'methodType is OnPurchase');
    } else {
      requireSet(ctx, 'pointsPerVisit', 'methodType is OnVisit');
      requireNull(ctx, 'pointCostAmount', 'methodType is OnVisit');
      requireNull(ctx, 'pointCostPoints', 'methodType is OnVisit');
    }
  });

/** StampRule body (2.3): `amountPerStamp` is required for `PerAmount`. */
export const stampRuleSchema = z
  .looseObject({
    stampCardId: id,
    name: id,
    mode: z.enum(['PerVisit', 'PerAmount']),
    minInvoiceAmount: amount,
    amountPerStamp: z.nullish(amount),
    cooldownDays: z.nullish(count),
    isActive: z.boolean(),
  })
  // A rule in a callback: its JSON Schema form is in json-schema-overrides.ts.
  .check((ctx) => {
    if (ctx.value.mode === 'PerAmount') {
      requireSet(ctx, 'amountPerStamp', 'mode is PerAmount');
      if (ctx.value.amountPerStamp === 0) {
        fieldIssue(ctx, 'amountPerStamp', 'must be greater than 0');
      }
    }
  });

const ruleWrapper = {
  externalStoreId: id,
  ruleVersion: integer,
  effectiveFrom: utcTimestamp,
};

/** LoyaltyRuleChanged payload: the wrapper of 2.3, discriminated on `ruleType`. */
export const loyaltyRuleChangedSchema = z.discriminatedUnion('ruleType', [
  z.looseObject({ ...ruleWrapper, ruleType: z.literal('EarnRate'), payload: earnRateSchema }),
  z.looseObject({ ...ruleWrapper, ruleType: z.literal('StampRule'), payload: stampRuleSchema }),
]);

/** RefundReversalCompleted payload (6.2). */
export const refundReversalCompletedSchema = z.looseObject({
  externalInvoiceId: id,
  status: z.enum(['Reversed', 'OverrideApplied', 'NegativeBalanceByPolicy']),
  pointsReversed: z.nullable(integer),
  stampsReversed: z.nullable(integer),
  newBalance: integer,
});

/** RedemptionExpiredOrCancelled payload (6.6). */
export const redemptionExpiredOrCancelledSchema = z.looseObject({
  redemptionId: id,
  externalInvoiceId: z.nullable(id),
  reason: z.enum(['Expired', 'Cancelled']),
});

/** IntegrationStatusChanged payload (6.6). */
export const integrationStatusChangedSchema = z.looseObject({
  status: z.enum(['Enabled', 'Disabled', 'Disconnected']),
});

/** Payload schemas of the four event types the service sends, by name (zod/mini, loose). */
export const outboundPayloadSchemas = {
  RefundReversalCompleted: refundReversalCompletedSchema,
  LoyaltyRuleChanged: loyaltyRuleChangedSchema,
  RedemptionExpiredOrCancelled: redemptionExpiredOrCancelledSchema,
  IntegrationStatusChanged: integrationStatusChangedSchema,
} as const;
