import { EmulatorError, refuseOptions } from './emulator-error.js';
import { urlCheck } from './emulator-options.js';
import type { IntegrationStatus, MerchantRecord } from './merchant.js';
import {
  credentialsOf,
  issueSecret,
  type MerchantCredentials,
  type MerchantStore,
} from './merchant-store.js';
import { announceAllRules, announceRule } from './outbound-events.js';
import {
  cancelRedemption,
  createRedemption,
  type RedemptionDeps,
  type RedemptionInput,
} from './redemptions.js';
import { parseEarnRate, parseStampCard, type RuleChange, wireEarnRate, wireStampRule } from './rules.js';

/**
 * What the merchant does in the dashboard. Each takes the tenant id of `createMerchant`.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * const { tenantId } = emulator.createMerchant();
 * emulator.pause(tenantId); // requests get 503 INTEGRATION_PAUSED
 * emulator.resume(tenantId);
 * const fresh = emulator.rotateSecret(tenantId); // old and new both work until completeRotation
 * ```
 */
export interface MerchantActions {
  /** Activates a merchant created with `activated: false`: credentials work, deliveries queue. */
  activate(tenantId: string): MerchantCredentials;
  /** Enables, disables or disconnects; sends IntegrationStatusChanged when the status changes. */
  setStatus(tenantId: string, status: IntegrationStatus): void;
  /** Requests get 503 `INTEGRATION_PAUSED` until `resume`. */
  pause(tenantId: string): void;
  resume(tenantId: string): void;
  /** Fresh credentials (the old key is revoked); the integration awaits its first signed event again. */
  reconnect(tenantId: string): MerchantCredentials;
  /** Issues a new secret; old and new are both active (two `v1` per delivery) until `completeRotation`. */
  rotateSecret(tenantId: string): string;
  /** Retires every secret but the newest. */
  completeRotation(tenantId: string): void;
  /** Event processing gets 503 `SUBSCRIPTION_LAPSED` until `renewSubscription`. */
  lapseSubscription(tenantId: string): void;
  renewSubscription(tenantId: string): void;
  /** Confirms a branch pairing created by BranchSynced. */
  confirmBranch(tenantId: string, externalBranchId: string): void;
  /** Freezes a customer for this store: earns get `CUSTOMER_INACTIVE`. */
  freezeCustomer(tenantId: string, externalCustomerId: string): void;
  unfreezeCustomer(tenantId: string, externalCustomerId: string): void;
  /** Changes an earn rule or a stamp card; returns the new `ruleVersion` of its LoyaltyRuleChanged. */
  changeRule(tenantId: string, change: RuleChange): number | undefined;
  /** Points the merchant's deliveries at a receiver; queued ones go out if the integration is active. */
  setReceiverUrl(tenantId: string, receiverUrl: string): void;
  /** A customer redeems points in the loyalty app: pending until it expires or is cancelled. */
  createRedemption(tenantId: string, redemption: RedemptionInput): string;
  /** Staff cancel a pending redemption. */
  cancelRedemption(tenantId: string, redemptionId: string): void;
}

export interface ActionDeps extends RedemptionDeps {
  store: MerchantStore;
  release: (tenantId: string) => void;
}

const refuse = (message: string) => new EmulatorError('INVALID_OPERATION', message);

export function createMerchantActions(deps: ActionDeps): MerchantActions {
  const { store, emit, now } = deps;
  // Activation (and reconnection) starts afresh: the partner learns the status and every rule,
  // all queued until its first signed event proves the new credentials.
  const activate = (m: MerchantRecord) => {
    m.activated = true;
    m.proven = false;
    m.status = 'Enabled';
    emit(m, 'IntegrationStatusChanged', { status: 'Enabled' });
    announceAllRules(m, emit, now());
  };
  const mapping = <T>(map: Map<string, T>, id: string, what: string): T => {
    const found = map.get(id);
    if (!found) throw refuse(`No ${what} ${JSON.stringify(id)} has been synced for this merchant`);
    return found;
  };
  const flag = (field: 'paused' | 'subscriptionActive', value: boolean) => (tenantId: string) => {
    store.get(tenantId)[field] = value;
  };
  const freeze = (frozen: boolean) => (tenantId: string, id: string) => {
    mapping(store.get(tenantId).customers, id, 'customer').frozen = frozen;
  };
  return {
    activate(tenantId) {
      const m = store.get(tenantId);
      if (m.status === 'Disconnected')
        throw refuse(`${tenantId} is disconnected: reconnect() issues fresh credentials`);
      if (!m.activated) activate(m);
      return credentialsOf(m);
    },
    setStatus(tenantId, status) {
      const m = store.get(tenantId);
      if (!m.activated) {
        if (status !== 'Enabled') throw refuse(`${tenantId} never activated: there is nothing to ${status}`);
        return void activate(m);
      }
      if (m.status === 'Disconnected' && status !== 'Disconnected') {
        throw refuse(`${tenantId} is disconnected: reconnect() issues the fresh credentials it needs`);
      }
      if (m.status === status) return;
      m.status = status;
      emit(m, 'IntegrationStatusChanged', { status });
    },
    pause: flag('paused', true),
    resume: flag('paused', false),
    reconnect(tenantId) {
      const m = store.get(tenantId);
      const credentials = store.reissue(m);
      activate(m);
      return credentials;
    },
    rotateSecret(tenantId) {
      const m = store.get(tenantId);
      const secret = issueSecret();
      m.secrets = [secret, ...m.secrets.slice(0, 1)];
      return secret;
    },
    completeRotation(tenantId) {
      store.get(tenantId).secrets.splice(1);
    },
    lapseSubscription: flag('subscriptionActive', false),
    renewSubscription: flag('subscriptionActive', true),
    confirmBranch(tenantId, id) {
      mapping(store.get(tenantId).branches, id, 'branch').confirmed = true;
    },
    freezeCustomer: freeze(true),
    unfreezeCustomer: freeze(false),
    changeRule(tenantId, change) {
      const m = store.get(tenantId);
      // Parse first: a refused rule (a FreeEntry earn method) must not use up a version.
      const version = m.ruleVersion + 1;
      if (change.ruleType === 'EarnRate') {
        // Removing the points program has no wire form: nothing is announced.
        if (change.payload === null) {
          m.earnRate = null;
          return undefined;
        }
        m.earnRate = parseEarnRate(change.payload, version);
        m.ruleVersion = version;
        announceRule(m, wireEarnRate(m.earnRate), emit, now());
      } else {
        const card = parseStampCard(change.payload, version);
        m.stampCards.set(card.stampCardId, card);
        m.ruleVersion = version;
        announceRule(m, wireStampRule(card), emit, now());
      }
      return version;
    },
    setReceiverUrl(tenantId, receiverUrl) {
      refuseOptions('setReceiverUrl: ', [urlCheck('receiverUrl', receiverUrl)]);
      store.get(tenantId).receiverUrl = receiverUrl;
      deps.release(tenantId);
    },
    createRedemption: (tenantId, redemption) => createRedemption(store.get(tenantId), redemption, deps),
    cancelRedemption: (tenantId, id) => cancelRedemption(store.get(tenantId), id, deps),
  };
}
