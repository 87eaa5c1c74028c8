import type { Environment } from './emulator-options.js';
import { type Balance, balanceOf } from './ledger.js';
import { matches } from './matches.js';
import {
  type BranchRecord,
  type ConnectionState,
  type CouponUsageRecord,
  type CustomerRecord,
  connectionState,
  type IntegrationStatus,
  type InvoiceRecord,
  type LedgerEntry,
  type MerchantRecord,
  type RedemptionRecord,
  type RefundRecord,
} from './merchant.js';
import type { MerchantStore } from './merchant-store.js';
import type { Endpoint, RequestLog, RequestRecord } from './request-log.js';
import type { StoredEarnRate, StoredStampCard } from './rules.js';
import type { Delivery, DeliveryFilter, WebhookDispatcher } from './webhook-dispatcher.js';

/**
 * A merchant as the service's dashboard would show it. It holds no API key and no secret, only
 * how many secrets are active, so it can go into a snapshot or a log.
 */
export interface MerchantState {
  tenantId: string;
  environment: Environment;
  externalStoreId: string;
  connection: ConnectionState;
  status: IntegrationStatus;
  paused: boolean;
  subscription: 'Active' | 'Lapsed';
  activeSecretCount: number;
  receiverUrl: string | null;
  ruleVersion: number;
  earnRate: StoredEarnRate | null;
  stampCards: StoredStampCard[];
  branches: BranchRecord[];
  customers: CustomerRecord[];
  products: { externalProductId: string; name: string; price: number; isActive: boolean }[];
  coupons: { externalCouponId: string; name: string; discountType: string; discountValue: number }[];
  couponUsages: CouponUsageRecord[];
  invoices: InvoiceRecord[];
  refunds: RefundRecord[];
  redemptions: RedemptionRecord[];
}

/** Filters of `emulator.requests()` and `emulator.events()`. */
export interface RequestFilter {
  /** Only the records after this `seq`: what a reader following the log has not seen yet. */
  after?: number;
  tenantId?: string;
  endpoint?: Endpoint;
  eventType?: string;
  eventId?: string;
}

/**
 * What a test can look at. Every method returns a copy: changing it changes nothing inside.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * const { tenantId } = emulator.createMerchant();
 * const points = emulator.balance(tenantId, 'cust-1001').points;
 * const outcomes = emulator.events({ tenantId }).map((r) => `${r.eventType} ${r.outcome} ${r.code ?? ''}`);
 * ```
 */
export interface EmulatorInspection {
  /** Every request answered (or dropped by a fault), oldest first. */
  requests(filter?: RequestFilter): RequestRecord[];
  /** The POST /events requests only, with their outcomes (processed, replayed, rejected, fault). */
  events(filter?: Omit<RequestFilter, 'endpoint'>): RequestRecord[];
  /** Every outbound event with its delivery attempts, oldest first. */
  deliveries(filter?: DeliveryFilter): Delivery[];
  /** A customer's points and stamps per card (zero for a customer never seen). */
  balance(tenantId: string, externalCustomerId: string): Balance;
  /** The merchant's ledger: every earn, reversal and redemption, oldest first. */
  ledger(tenantId: string): LedgerEntry[];
  /** The merchant's integration state, mappings, rules, invoices and redemptions. */
  merchant(tenantId: string): MerchantState;
}

export function createInspection(
  store: MerchantStore,
  log: RequestLog,
  dispatcher: WebhookDispatcher,
): EmulatorInspection {
  // The log hands out fresh copies: a caller may keep or change them.
  const requests = ({ after, ...filter }: RequestFilter = {}) =>
    log.after(after).filter((r) => matches(r, filter));
  return {
    requests,
    events: (filter = {}) => requests({ ...filter, endpoint: 'events' }),
    deliveries: (filter) => dispatcher.list(filter),
    balance: (tenantId, customerId) => balanceOf(store.get(tenantId), customerId),
    ledger: (tenantId) => structuredClone(store.get(tenantId).ledger.newest()),
    merchant: (tenantId) => snapshot(store.get(tenantId)),
  };
}

const values = <T>(map: Map<string, T>) => structuredClone([...map.values()]);

/** The integration's state and rules: what the inspection API and the dashboard both show. */
export function integrationOf(m: MerchantRecord) {
  return {
    tenantId: m.tenantId,
    environment: m.environment,
    externalStoreId: m.externalStoreId,
    connection: connectionState(m),
    status: m.status,
    paused: m.paused,
    subscription: m.subscriptionActive ? ('Active' as const) : ('Lapsed' as const),
    activeSecretCount: m.secrets.length,
    receiverUrl: m.receiverUrl ?? null,
    ruleVersion: m.ruleVersion,
    earnRate: structuredClone(m.earnRate),
    stampCards: values(m.stampCards),
    branches: values(m.branches),
  };
}

function snapshot(m: MerchantRecord): MerchantState {
  return {
    ...integrationOf(m),
    customers: values(m.customers),
    products: values(m.products),
    coupons: values(m.coupons),
    couponUsages: values(m.couponUsages),
    invoices: values(m.invoices),
    refunds: values(m.refunds),
    redemptions: values(m.redemptions),
  };
}
