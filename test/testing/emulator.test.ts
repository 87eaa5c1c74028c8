import { createEnvelope, ERROR_CODES, type ErrorCode } from 'loyalty-partner-sdk';
import { DEFAULT_RULES, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type Answer, earn, partner, readyMerchant, startEmulator } from './helpers.js';

type Scenario = (emulator: Emulator, url: string) => Promise<Answer>;

const card = DEFAULT_RULES.stampCards[0];

// One way to reach every code of the catalogue. A code added to ERROR_CODES fails to compile here.
const SCENARIOS: Record<ErrorCode, Scenario> = {
  MISSING_API_KEY: (e, url) =>
    partner(url, e.createMerchant()).post('CustomerSynced', samplePayload('CustomerSynced'), {
      apiKey: null,
    }),
  INVALID_API_KEY: (e, url) =>
    partner(url, e.createMerchant()).post('CustomerSynced', samplePayload('CustomerSynced'), {
      apiKey: 'lk_test_unknown',
    }),
  INVALID_SIGNATURE: (e, url) =>
    partner(url, e.createMerchant()).post('CustomerSynced', samplePayload('CustomerSynced'), {
      secret: 'whsec_wrong',
    }),
  SIGNATURE_EXPIRED: (e, url) =>
    partner(url, e.createMerchant()).post('CustomerSynced', samplePayload('CustomerSynced'), {
      timestamp: Math.floor(Date.now() / 1000) - 301,
    }),
  INTEGRATION_NOT_CONNECTED: (e, url) =>
    partner(url, e.createMerchant({ activated: false })).post(
      'CustomerSynced',
      samplePayload('CustomerSynced'),
    ),
  INTEGRATION_ALREADY_DISCONNECTED: async (e, url) => {
    const m = e.createMerchant();
    e.setStatus(m.tenantId, 'Disconnected');
    return partner(url, m).post('CustomerSynced', samplePayload('CustomerSynced'));
  },
  INTEGRATION_PAUSED: async (e, url) => {
    const m = e.createMerchant();
    e.pause(m.tenantId);
    return partner(url, m).get('/connection');
  },
  MISSING_IDEMPOTENCY_KEY: async (e, url) => {
    const m = e.createMerchant();
    const response = await fetch(`${url}/api/partner/v1/redemptions/validate`, {
      method: 'POST',
      headers: { 'x-api-key': m.apiKey, 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: response.status, body: await response.json(), headers: response.headers };
  },
  UNKNOWN_EVENT_TYPE: (e, url) => {
    const envelope = {
      ...createEnvelope('CustomerSynced', samplePayload('CustomerSynced')),
      eventType: 'PointsGifted',
    };
    return partner(url, e.createMerchant()).postRaw(JSON.stringify(envelope));
  },
  INVALID_PAYLOAD: (e, url) => partner(url, e.createMerchant()).postRaw('{"eventType": "InvoiceEarned",'),
  INVALID_REQUEST: (e, url) =>
    partner(url, e.createMerchant()).get('/customers/lookup?phone=%2B966500000001&customerId=lc-1'),
  EVENT_HANDLER_NOT_REGISTERED: (e, url) =>
    partner(url, e.createMerchant()).post('InvoiceRefunded', samplePayload('InvoiceRefunded')),
  WRONG_EVENT_DIRECTION: (e, url) =>
    partner(url, e.createMerchant()).postRaw(
      JSON.stringify(createEnvelope('IntegrationStatusChanged', { status: 'Enabled' }, { entityId: 'x' })),
    ),
  CUSTOMER_MAPPING_NOT_FOUND: async (e, url) => {
    const m = await readyMerchant(e, url);
    return m.partner.post('InvoiceEarned', { ...earn('inv-1', 50), externalCustomerId: 'cust-unknown' });
  },
  BRANCH_MAPPING_NOT_FOUND: async (e, url) => {
    const m = await readyMerchant(e, url);
    return m.partner.post('InvoiceEarned', { ...earn('inv-1', 50), externalBranchId: 'branch-unknown' });
  },
  BRANCH_MAPPING_UNCONFIRMED: async (e, url) => {
    const m = await readyMerchant(e, url);
    await m.partner.post('BranchSynced', { externalBranchId: 'branch-malqa', name: 'Malqa', isActive: true });
    return m.partner.post('InvoiceEarned', { ...earn('inv-1', 50), externalBranchId: 'branch-malqa' });
  },
  CUSTOMER_INACTIVE: async (e, url) => {
    const m = await readyMerchant(e, url);
    e.freezeCustomer(m.tenantId, 'cust-1001');
    return m.partner.post('InvoiceEarned', earn('inv-1', 50));
  },
  MISSING_STAMP_CARD_ID: async (e, url) => {
    const m = await readyMerchant(e, url);
    const envelope = createEnvelope('InvoiceEarned', earn('inv-1', 50, card.stampCardId));
    return m.partner.postRaw(
      JSON.stringify({ ...envelope, payload: { ...envelope.payload, stampCardId: null } }),
    );
  },
  STAMP_CARD_NOT_FOUND: async (e, url) =>
    (await readyMerchant(e, url)).partner.post('InvoiceEarned', earn('inv-1', 50, 'card-x')),
  STAMP_CARD_INACTIVE: async (e, url) => {
    const m = await readyMerchant(e, url, { rules: { stampCards: [{ ...card, isActive: false }] } });
    return m.partner.post('InvoiceEarned', earn('inv-1', 50, card.stampCardId));
  },
  STAMP_CARD_FREE_ENTRY_ONLY: async (e, url) => {
    const m = await readyMerchant(e, url, { rules: { stampCards: [{ ...card, mode: 'FreeEntry' }] } });
    return m.partner.post('InvoiceEarned', earn('inv-1', 50, card.stampCardId));
  },
  NO_ACTIVE_POINTS_PROGRAM: async (e, url) =>
    (await readyMerchant(e, url, { rules: { earnRate: null } })).partner.post(
      'InvoiceEarned',
      earn('inv-1', 50),
    ),
  NO_ACTIVE_EARNING_METHOD: async (e, url) => {
    const m = await readyMerchant(e, url, {
      rules: { earnRate: { ...DEFAULT_RULES.earnRate, isActive: false } },
    });
    return m.partner.post('InvoiceEarned', earn('inv-1', 50));
  },
  PARTNER_INVOICE_ALREADY_EARNED: async (e, url) => {
    const m = await readyMerchant(e, url);
    await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    return m.partner.post('InvoiceEarned', earn('inv-1', 50));
  },
  SUBSCRIPTION_LAPSED: async (e, url) => {
    const m = e.createMerchant();
    e.lapseSubscription(m.tenantId);
    return partner(url, m).post('CustomerSynced', samplePayload('CustomerSynced'));
  },
  CONCURRENCY_CONFLICT: async (e, url) => {
    const m = await readyMerchant(e, url);
    e.injectFaults({ kinds: ['CONCURRENCY_CONFLICT'], times: 1 });
    return m.partner.post('InvoiceEarned', earn('inv-1', 50));
  },
};

describe('every error code of the contract (spec 7.1 and 7.2)', () => {
  let emulator: Emulator | undefined;
  afterEach(() => emulator?.close());

  it.each(Object.keys(SCENARIOS) as ErrorCode[])(
    'answers %s with its catalogue status and the error envelope',
    async (code) => {
      const started = await startEmulator();
      emulator = started.emulator;
      const answer = await SCENARIOS[code](started.emulator, started.url);
      expect([answer.status, answer.body.code]).toEqual([ERROR_CODES[code].status, code]);
      expect(answer.body.message).toEqual(expect.any(String));
      expect(answer.body.correlationId).toBe(answer.headers.get('x-correlation-id'));
      expect(Number.isNaN(Date.parse(answer.headers.get('date') ?? ''))).toBe(false);
    },
  );

  it('answers INVALID_API_KEY to a key of the other environment', async () => {
    const started = await startEmulator({ environment: 'testing' });
    emulator = started.emulator;
    const live = started.emulator.createMerchant({ environment: 'production' });
    const answer = await partner(started.url, live).post('CustomerSynced', samplePayload('CustomerSynced'));
    expect(live.apiKey.startsWith('lk_live_')).toBe(true);
    expect([answer.status, answer.body.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('answers SIGNATURE_EXPIRED to a timestamp ahead of the tolerance too, and accepts 300 s exactly', async () => {
    const started = await startEmulator({ clock: 'manual' });
    emulator = started.emulator;
    const m = started.emulator.createMerchant();
    const now = Math.floor(started.emulator.now().getTime() / 1000);
    const p = partner(started.url, m);
    const ahead = await p.post('CustomerSynced', samplePayload('CustomerSynced'), { timestamp: now + 301 });
    const edge = await p.post('CustomerSynced', samplePayload('CustomerSynced'), { timestamp: now - 300 });
    expect(ahead.body.code).toBe('SIGNATURE_EXPIRED');
    expect(edge.status).toBe(200);
  });

  it('answers INVALID_PAYLOAD, not UNKNOWN_EVENT_TYPE, to a body without an eventType', async () => {
    const started = await startEmulator();
    emulator = started.emulator;
    const answer = await partner(started.url, started.emulator.createMerchant()).postRaw('{"payload":{}}');
    expect([answer.status, answer.body.code]).toEqual([400, 'INVALID_PAYLOAD']);
  });
});
