import type { PayloadOf } from '../contract/index.js';
import { type HandlerResult, type Rejection, reject } from './http-reply.js';
import { balanceOf, record, stampsOn } from './ledger.js';
import type { CustomerRecord, MerchantRecord } from './merchant.js';
import type { StoredEarnRate, StoredStampCard } from './rules.js';

type InvoiceEarned = PayloadOf<'InvoiceEarned'>;

const DAY_MS = 24 * 60 * 60_000;
// Division of decimal riyals (30 / 0.1 = 299.99...) must not lose a whole point or stamp.
const EPSILON = 1e-9;
const wholeUnits = (amount: number, per: number) => Math.floor(amount / per + EPSILON);

/** The setup checks of spec 7.2 that every earn passes, in the order the emulator applies them. */
function checkSetup(merchant: MerchantRecord, p: InvoiceEarned): CustomerRecord | Rejection {
  if (merchant.invoices.get(p.externalInvoiceId)?.credited) {
    return reject('PARTNER_INVOICE_ALREADY_EARNED', `Invoice ${p.externalInvoiceId} was already credited`);
  }
  const customer = merchant.customers.get(p.externalCustomerId);
  if (!customer) {
    return reject(
      'CUSTOMER_MAPPING_NOT_FOUND',
      `No customer mapping for ${p.externalCustomerId}: send CustomerSynced first`,
    );
  }
  const branch = merchant.branches.get(p.externalBranchId);
  if (!branch) {
    return reject(
      'BRANCH_MAPPING_NOT_FOUND',
      `No branch mapping for ${p.externalBranchId}: send BranchSynced first`,
    );
  }
  if (!branch.confirmed) {
    return reject(
      'BRANCH_MAPPING_UNCONFIRMED',
      `The merchant has not confirmed branch ${p.externalBranchId} yet`,
    );
  }
  if (customer.frozen)
    return reject('CUSTOMER_INACTIVE', `Customer ${p.externalCustomerId} is frozen for this store`);
  return customer;
}

function points(rule: StoredEarnRate | null, subtotal: number): number | Rejection {
  if (!rule) return reject('NO_ACTIVE_POINTS_PROGRAM', 'The store has no active points program');
  if (!rule.isActive)
    return reject('NO_ACTIVE_EARNING_METHOD', 'The points program has no active earning method');
  if (subtotal < rule.minimumPurchase) return 0;
  if (rule.methodType === 'OnVisit') return rule.pointsPerVisit ?? 0;
  return wholeUnits(subtotal, rule.pointCostAmount ?? 1) * (rule.pointCostPoints ?? 0);
}

function stamps(merchant: MerchantRecord, card: StoredStampCard | undefined, p: InvoiceEarned, now: number) {
  if (!card) return reject('STAMP_CARD_NOT_FOUND', `Stamp card ${p.stampCardId} is unknown for this store`);
  if (!card.isActive) return reject('STAMP_CARD_INACTIVE', `Stamp card ${card.stampCardId} is deactivated`);
  if (card.mode === 'FreeEntry') {
    return reject('STAMP_CARD_FREE_ENTRY_ONLY', `Stamp card ${card.stampCardId} earns by free entry only`);
  }
  if (!card.earningMethodActive) {
    return reject('NO_ACTIVE_EARNING_METHOD', `Stamp card ${card.stampCardId} has no active earning method`);
  }
  const subtotal = p.subtotalAfterDiscountBeforeVat;
  if (subtotal < card.minInvoiceAmount) return 0;
  const last = merchant.lastStampAt.get(`${p.externalCustomerId}\u0000${card.stampCardId}`);
  // Inside the cooldown the visit is acknowledged with zero stamps, not refused (spec 3.3).
  if (card.cooldownDays && last !== undefined && now - last < card.cooldownDays * DAY_MS) return 0;
  return card.mode === 'PerVisit' ? 1 : wholeUnits(subtotal, card.amountPerStamp ?? Number.POSITIVE_INFINITY);
}

/**
 * Processes an InvoiceEarned: the checks of spec 7.2, then points or stamps from the store's
 * active rules into the ledger. An invoice that earns zero (below a minimum, inside a cooldown)
 * is acknowledged but not credited, so it can still earn later under a new event.
 */
export function earnInvoice(
  merchant: MerchantRecord,
  p: InvoiceEarned,
  eventId: string,
  now: number,
): HandlerResult {
  const customer = checkSetup(merchant, p);
  if ('ok' in customer) return customer;
  const subtotal = p.subtotalAfterDiscountBeforeVat;
  const card = p.stampCardId === null ? undefined : merchant.stampCards.get(p.stampCardId);
  const earned =
    p.earnType === 'Points' ? points(merchant.earnRate, subtotal) : stamps(merchant, card, p, now);
  if (typeof earned !== 'number') return earned;

  const pointsEarned = p.earnType === 'Points' ? earned : 0;
  const stampsEarned = p.earnType === 'Stamps' ? earned : 0;
  merchant.invoices.set(p.externalInvoiceId, {
    externalInvoiceId: p.externalInvoiceId,
    externalCustomerId: customer.externalCustomerId,
    subtotal,
    stampCardId: p.stampCardId,
    pointsEarned,
    stampsEarned,
    pointsReversed: 0,
    stampsReversed: 0,
    credited: earned > 0,
  });
  if (earned > 0) {
    const stampCardId = p.earnType === 'Stamps' ? p.stampCardId : null;
    record(merchant, {
      at: now,
      kind: 'earn',
      externalCustomerId: customer.externalCustomerId,
      points: pointsEarned,
      stamps: stampsEarned,
      stampCardId,
      externalInvoiceId: p.externalInvoiceId,
      eventId,
    });
    if (stampCardId !== null)
      merchant.lastStampAt.set(`${customer.externalCustomerId}\u0000${stampCardId}`, now);
  }
  const balance =
    p.earnType === 'Points'
      ? balanceOf(merchant, customer.externalCustomerId).points
      : stampsOn(merchant, customer.externalCustomerId, p.stampCardId ?? '');
  return { ok: true, result: { pointsEarned, stampsEarned, balance } };
}
