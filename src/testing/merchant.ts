import type { PayloadOf } from '../contract/index.js';
import type { BoundedList } from './bounded-list.js';
import type { BoundedMap } from './bounded-map.js';
import type { Environment } from './emulator-options.js';
import type { StoredEarnRate, StoredStampCard } from './rules.js';

/** The statuses of IntegrationStatusChanged: `Enabled`, `Disabled`, `Disconnected`. */
export type IntegrationStatus = PayloadOf<'IntegrationStatusChanged'>['status'];

/**
 * Where a merchant's integration stands (spec 3.1). `paused` is reported beside it, since a
 * merchant can pause an integration in any of these states.
 */
export type ConnectionState =
  | 'NeverActivated'
  | 'AwaitingFirstSignedEvent'
  | 'Active'
  | 'Disabled'
  | 'Disconnected';

/** One movement of points or stamps. Balances are the sums of these. */
export interface LedgerEntry {
  /** Emulator time, epoch milliseconds. */
  at: number;
  kind: 'earn' | 'reversal' | 'redemption' | 'redemption-release';
  externalCustomerId: string;
  /** Signed change of the points balance. */
  points: number;
  /** Signed change of the stamps on `stampCardId`. */
  stamps: number;
  stampCardId: string | null;
  externalInvoiceId: string | null;
  redemptionId: string | null;
  /** The partner event that caused it, when one did. */
  eventId: string | null;
}

/** A branch mapping created by BranchSynced; earns need it confirmed by the merchant. */
export interface BranchRecord {
  externalBranchId: string;
  name: string;
  isActive: boolean;
  confirmed: boolean;
}

/** A customer mapping created by CustomerSynced. `customerId` is the service's own id. */
export interface CustomerRecord {
  customerId: string;
  externalCustomerId: string;
  phone: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  frozen: boolean;
}

/** One CouponUsed, and whether a CouponUsageCancelled reversed it (spec 3.4). */
export interface CouponUsageRecord {
  externalCouponId: string;
  externalInvoiceId: string;
  externalCustomerId: string | null;
  status: 'Used' | 'Cancelled';
}

/** An InvoiceEarned the service processed; `credited` once it earned more than zero. */
export interface InvoiceRecord {
  externalInvoiceId: string;
  externalCustomerId: string;
  subtotal: number;
  stampCardId: string | null;
  pointsEarned: number;
  stampsEarned: number;
  pointsReversed: number;
  stampsReversed: number;
  credited: boolean;
}

/** The outcome of an InvoiceRefunded, as RefundReversalCompleted reports it. */
export type RefundRecord = PayloadOf<'RefundReversalCompleted'> & { externalOriginalInvoiceId: string };

/** A redemption: pending until it expires or staff cancel it (spec 3.6). */
export interface RedemptionRecord {
  redemptionId: string;
  externalCustomerId: string;
  points: number;
  externalInvoiceId: string | null;
  status: 'Pending' | 'Dropped';
  reason: PayloadOf<'RedemptionExpiredOrCancelled'>['reason'] | null;
  createdAt: number;
  expiresAt: number;
}

/** Everything the emulated service keeps about one merchant. Internal and mutable. */
export interface MerchantRecord {
  tenantId: string;
  environment: Environment;
  externalStoreId: string;
  apiKey: string;
  /** Active signing secrets, newest first; two while a rotation is under way. */
  secrets: string[];
  activated: boolean;
  /** A signed POST /events arrived since the current credentials were issued. */
  proven: boolean;
  status: IntegrationStatus;
  paused: boolean;
  subscriptionActive: boolean;
  receiverUrl: string | undefined;
  autoConfirmBranches: boolean;
  ruleVersion: number;
  earnRate: StoredEarnRate | null;
  stampCards: Map<string, StoredStampCard>;
  branches: Map<string, BranchRecord>;
  customers: Map<string, CustomerRecord>;
  /** Indexes of `customers` for the lookup endpoint: phone and service id to external id. */
  customersByPhone: Map<string, string>;
  customersById: Map<string, string>;
  products: Map<string, PayloadOf<'ProductSynced'>>;
  coupons: Map<string, PayloadOf<'CouponSynced'>>;
  couponUsages: Map<string, CouponUsageRecord>;
  /** The newest `historyLimit` invoices, by `externalInvoiceId`. */
  invoices: BoundedMap<string, InvoiceRecord>;
  refunds: Map<string, RefundRecord>;
  redemptions: Map<string, RedemptionRecord>;
  /** When each customer last got a stamp on each card, for `cooldownDays`. */
  lastStampAt: Map<string, number>;
  /** The newest `historyLimit` movements. */
  ledger: BoundedList<LedgerEntry>;
  /** Running sums of the ledger per customer. */
  balances: Map<string, { points: number; stamps: Record<string, number> }>;
  customerSeq: number;
}

/** The connection state of spec 3.1 that a merchant record is in. */
export function connectionState(merchant: MerchantRecord): ConnectionState {
  if (!merchant.activated) return 'NeverActivated';
  if (merchant.status === 'Disconnected') return 'Disconnected';
  if (merchant.status === 'Disabled') return 'Disabled';
  return merchant.proven ? 'Active' : 'AwaitingFirstSignedEvent';
}
