import { EmulatorError } from './emulator-error.js';
import { balanceOf, record } from './ledger.js';
import type { MerchantRecord, RedemptionRecord } from './merchant.js';
import type { Emit } from './outbound-events.js';

/** What a test passes to `emulator.createRedemption`: a customer spends points in the loyalty app. */
export interface RedemptionInput {
  externalCustomerId: string;
  points: number;
  /** Set when the redemption is already attached to an invoice. */
  externalInvoiceId?: string | null;
}

export interface RedemptionDeps {
  now: () => number;
  ttlMs: number;
  schedule: (delayMs: number, task: () => void) => void;
  /** Sends RedemptionExpiredOrCancelled when one is dropped (silent until that type ships). */
  emit: Emit;
}

/**
 * Creates a pending redemption (spec 3.6). Its points are held from the balance at once, and
 * released when it is dropped: by expiry after the TTL, or by staff cancelling it.
 */
export function createRedemption(
  merchant: MerchantRecord,
  input: RedemptionInput,
  deps: RedemptionDeps,
): string {
  const customer = merchant.customers.get(input.externalCustomerId);
  if (!customer)
    throw new EmulatorError('INVALID_OPERATION', `Customer ${input.externalCustomerId} is unknown`);
  if (!(Number.isSafeInteger(input.points) && input.points > 0)) {
    throw new EmulatorError('INVALID_OPERATION', 'A redemption needs a whole number of points > 0');
  }
  if (balanceOf(merchant, input.externalCustomerId).points < input.points) {
    throw new EmulatorError(
      'INVALID_OPERATION',
      `Customer ${input.externalCustomerId} has fewer than ${input.points} points`,
    );
  }
  const now = deps.now();
  const redemptionId = `red-${merchant.tenantId}-${merchant.redemptions.size + 1}`;
  const redemption: RedemptionRecord = {
    redemptionId,
    externalCustomerId: input.externalCustomerId,
    points: input.points,
    externalInvoiceId: input.externalInvoiceId ?? null,
    status: 'Pending',
    reason: null,
    createdAt: now,
    expiresAt: now + deps.ttlMs,
  };
  merchant.redemptions.set(redemptionId, redemption);
  record(merchant, {
    at: now,
    kind: 'redemption',
    externalCustomerId: input.externalCustomerId,
    points: -input.points,
    redemptionId,
  });
  deps.schedule(deps.ttlMs, () => drop(merchant, redemption, 'Expired', deps));
  return redemptionId;
}

export function cancelRedemption(merchant: MerchantRecord, redemptionId: string, deps: RedemptionDeps): void {
  const redemption = merchant.redemptions.get(redemptionId);
  if (!redemption)
    throw new EmulatorError('UNKNOWN_REDEMPTION', `No redemption ${redemptionId} for ${merchant.tenantId}`);
  if (redemption.status !== 'Pending') {
    throw new EmulatorError('INVALID_OPERATION', `Redemption ${redemptionId} is no longer pending`);
  }
  drop(merchant, redemption, 'Cancelled', deps);
}

function drop(
  merchant: MerchantRecord,
  redemption: RedemptionRecord,
  reason: 'Expired' | 'Cancelled',
  deps: RedemptionDeps,
): void {
  if (redemption.status !== 'Pending') return;
  redemption.status = 'Dropped';
  redemption.reason = reason;
  record(merchant, {
    at: deps.now(),
    kind: 'redemption-release',
    externalCustomerId: redemption.externalCustomerId,
    points: redemption.points,
    redemptionId: redemption.redemptionId,
  });
  deps.emit(merchant, 'RedemptionExpiredOrCancelled', {
    redemptionId: redemption.redemptionId,
    externalInvoiceId: redemption.externalInvoiceId,
    reason,
  });
}
