import { randomBytes } from 'node:crypto';
import { BoundedList } from './bounded-list.js';
import { BoundedMap } from './bounded-map.js';
import { EmulatorError, refuseOptions } from './emulator-error.js';
import { type Environment, urlCheck } from './emulator-options.js';
import type { MerchantRecord } from './merchant.js';
import { DEFAULT_RULES, type MerchantRules, parseEarnRate, parseStampCard } from './rules.js';

/**
 * Options of `emulator.createMerchant`. Every field is optional.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const emulator = createEmulator();
 * emulator.createMerchant({ tenantId: 'cafe-olaya', autoConfirmBranches: true, rules: { earnRate: null } });
 * ```
 */
export interface MerchantOptions {
  /**
   * The merchant's tenant id on the partner platform, sent as `X-TenantId` on deliveries.
   * @default 'merchant-<n>'
   */
  tenantId?: string;
  /**
   * The partner deployment the merchant targets; a key of the other deployment gets `INVALID_API_KEY`.
   * @default the emulator's environment
   */
  environment?: Environment;
  /** @default DEFAULT_RULES (1 point per 10 riyals; a PerVisit stamp card `card-coffee`) */
  rules?: MerchantRules;
  /**
   * Where this merchant's webhooks go.
   * @default the emulator's `receiverUrl`; without one, deliveries stay queued
   */
  receiverUrl?: string;
  /**
   * `false` creates a merchant that never activated: its key answers `INTEGRATION_NOT_CONNECTED`
   * until `emulator.activate(tenantId)`.
   * @default true
   */
  activated?: boolean;
  /**
   * The `externalStoreId` of the merchant's LoyaltyRuleChanged events.
   * @default the tenant id
   */
  externalStoreId?: string;
  /**
   * Confirm branch mappings as soon as BranchSynced creates them, instead of waiting for
   * `emulator.confirmBranch`.
   * @default false
   */
  autoConfirmBranches?: boolean;
  /**
   * A fixed API key instead of a fresh random one, so a restarted emulator keeps the credentials
   * a till was configured with. It must start with `lk_test_` (or `lk_live_` in production).
   * @default a fresh random key
   */
  apiKey?: string;
  /**
   * A fixed signing secret instead of a fresh random one (at least 16 characters).
   * @default a fresh random `whsec_` secret
   */
  signingSecret?: string;
  /**
   * Branch mappings the merchant already has, as if BranchSynced had created them;
   * `confirmed: false` leaves one waiting for `emulator.confirmBranch`.
   * @default []
   */
  branches?: readonly { externalBranchId: string; name?: string; confirmed?: boolean }[];
}

export const MERCHANT_DEFAULTS = {
  activated: true,
  autoConfirmBranches: false,
  rules: DEFAULT_RULES,
} as const satisfies MerchantOptions;

/**
 * What the merchant hands the partner at activation.
 *
 * @example
 * ```ts
 * import { createEmulator } from 'loyalty-partner-sdk/testing';
 * const { tenantId, apiKey, signingSecret } = createEmulator().createMerchant();
 * ```
 */
export interface MerchantCredentials {
  tenantId: string;
  apiKey: string;
  signingSecret: string;
}

/** Fresh random credentials; the key's prefix tells its environment apart, as real keys do. */
const issueKey = (environment: Environment) =>
  `lk_${environment === 'production' ? 'live' : 'test'}_${randomBytes(16).toString('hex')}`;

export const issueSecret = (): string => `whsec_${randomBytes(24).toString('base64url')}`;

/** The merchants of one emulator, found by tenant id or by API key. */
export class MerchantStore {
  readonly #byTenant = new Map<string, MerchantRecord>();
  readonly #byKey = new Map<string, MerchantRecord>();

  create(
    options: MerchantOptions,
    defaults: { environment: Environment; receiverUrl: string | undefined; historyLimit: number },
  ) {
    const tenantId = options.tenantId ?? `merchant-${this.#byTenant.size + 1}`;
    if (this.#byTenant.has(tenantId))
      throw new EmulatorError('TENANT_EXISTS', `Merchant ${tenantId} already exists`);
    const receiverUrl = options.receiverUrl ?? defaults.receiverUrl;
    const environment = options.environment ?? defaults.environment;
    const apiKey = options.apiKey ?? issueKey(environment);
    const secret = options.signingSecret;
    // Fixed credentials look like issued ones, so a key still tells its environment apart.
    const prefix = environment === 'production' ? 'lk_live_' : 'lk_test_';
    refuseOptions('createMerchant: ', [
      ['tenantId', tenantId !== '', 'must be a non-empty string'],
      receiverUrl !== undefined && urlCheck('receiverUrl', receiverUrl),
      [
        'apiKey',
        apiKey.startsWith(prefix) && apiKey.length >= prefix.length + 8 && !/\s/.test(apiKey),
        `must start with ${prefix} followed by at least 8 characters, without spaces`,
      ],
      ['apiKey', !this.#byKey.has(apiKey), 'is already held by another merchant'],
      secret !== undefined && [
        'signingSecret',
        secret.length >= 16 && !/\s/.test(secret),
        'must be at least 16 characters, without spaces',
      ],
    ]);
    const rules = { ...MERCHANT_DEFAULTS.rules, ...options.rules };
    let ruleVersion = 0;
    const earnRate = rules.earnRate === null ? null : parseEarnRate(rules.earnRate, ++ruleVersion);
    const stampCards = new Map(
      rules.stampCards.map((card) => [card.stampCardId, parseStampCard(card, ++ruleVersion)]),
    );
    const merchant: MerchantRecord = {
      tenantId,
      environment,
      externalStoreId: options.externalStoreId ?? tenantId,
      apiKey,
      secrets: [secret ?? issueSecret()],
      // Activation is the emulator's to do: it announces the status and the rules.
      activated: false,
      proven: false,
      status: 'Enabled',
      paused: false,
      subscriptionActive: true,
      receiverUrl,
      autoConfirmBranches: options.autoConfirmBranches ?? MERCHANT_DEFAULTS.autoConfirmBranches,
      ruleVersion,
      earnRate,
      stampCards,
      branches: new Map(
        (options.branches ?? []).map((b) => [
          b.externalBranchId,
          {
            externalBranchId: b.externalBranchId,
            name: b.name ?? b.externalBranchId,
            isActive: true,
            confirmed: b.confirmed ?? true,
          },
        ]),
      ),
      customers: new Map(),
      customersByPhone: new Map(),
      customersById: new Map(),
      products: new Map(),
      coupons: new Map(),
      couponUsages: new Map(),
      invoices: new BoundedMap(defaults.historyLimit),
      refunds: new Map(),
      redemptions: new Map(),
      lastStampAt: new Map(),
      ledger: new BoundedList(defaults.historyLimit),
      balances: new Map(),
      customerSeq: 0,
    };
    this.#byTenant.set(tenantId, merchant);
    this.#byKey.set(merchant.apiKey, merchant);
    return merchant;
  }

  /** The merchant of a tenant id; a test naming an unknown one gets `UNKNOWN_TENANT`. */
  get(tenantId: string): MerchantRecord {
    const merchant = this.#byTenant.get(tenantId);
    if (!merchant)
      throw new EmulatorError('UNKNOWN_TENANT', `No merchant ${JSON.stringify(tenantId)} in this emulator`);
    return merchant;
  }

  /** The merchant whose current key this is; revoked keys find nobody. */
  byApiKey(apiKey: string): MerchantRecord | undefined {
    return this.#byKey.get(apiKey);
  }

  /** Issues fresh credentials and revokes the old key (reconnection after a disconnect). */
  reissue(merchant: MerchantRecord): MerchantCredentials {
    this.#byKey.delete(merchant.apiKey);
    merchant.apiKey = issueKey(merchant.environment);
    merchant.secrets = [issueSecret()];
    this.#byKey.set(merchant.apiKey, merchant);
    return credentialsOf(merchant);
  }

  all(): MerchantRecord[] {
    return [...this.#byTenant.values()];
  }
}

/** The credentials a merchant holds now (the newest secret while rotating). */
export function credentialsOf(merchant: MerchantRecord): MerchantCredentials {
  return { tenantId: merchant.tenantId, apiKey: merchant.apiKey, signingSecret: merchant.secrets[0] ?? '' };
}
