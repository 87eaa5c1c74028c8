import { createServer, type Server } from 'node:http';
import { LoyaltyApiError, LoyaltyClient } from 'loyalty-partner-sdk';
import { createNodeListener } from 'loyalty-partner-sdk/node';
import {
  createEmulator,
  type Emulator,
  type MerchantCredentials,
  samplePayload,
} from 'loyalty-partner-sdk/testing';
import {
  createReceiver,
  type DeliveryContext,
  type Envelope,
  type Secrets,
} from 'loyalty-partner-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { listenForWebhooks } from './helpers.js';

type Seen = { eventType: string; tenantId: string; payload: unknown; ruleVersion?: number };

/** A partner's receiver on loopback: createReceiver + createNodeListener, secrets per tenant. */
async function startPartnerReceiver(secrets: Map<string, Secrets>) {
  const seen: Seen[] = [];
  const note = (event: Envelope, ctx: DeliveryContext) =>
    void seen.push({ eventType: event.eventType, tenantId: ctx.tenantId, payload: event.payload });
  const receiver = createReceiver({
    secrets: (tenantId) => secrets.get(tenantId),
    handlers: {
      IntegrationStatusChanged: note,
      LoyaltyRuleChanged: note,
      RefundReversalCompleted: note,
      RedemptionExpiredOrCancelled: note,
    },
  });
  const server: Server = createServer(createNodeListener(receiver));
  return { ...(await listenForWebhooks(server)), seen };
}

describe('LoyaltyClient and the receiver against the emulator, end to end', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  const setup = async (options: Parameters<typeof createEmulator>[0] = {}) => {
    const secrets = new Map<string, Secrets>();
    const receiver = await startPartnerReceiver(secrets);
    closers.push(receiver.close);
    const emulator: Emulator = createEmulator({ ...options, receiverUrl: receiver.url });
    const { url } = await emulator.listen();
    closers.push(() => emulator.close());
    const clientFor = (
      m: MerchantCredentials,
      extra: Partial<ConstructorParameters<typeof LoyaltyClient>[0]> = {},
    ) => {
      const client = new LoyaltyClient({
        baseUrl: url,
        apiKey: m.apiKey,
        signingSecret: m.signingSecret,
        retry: { baseDelayMs: 1, maxDelayMs: 5 },
        ...extra,
      });
      closers.push(() => client.close());
      return client;
    };
    const merchant = (tenantId?: string) => {
      const m = emulator.createMerchant(tenantId ? { tenantId } : {});
      secrets.set(m.tenantId, m.signingSecret);
      return m;
    };
    return { emulator, url, receiver, secrets, clientFor, merchant };
  };

  it('plays a POS day: connection check, syncs, an earn, a lookup, and the webhooks it unlocks', async () => {
    const { emulator, receiver, clientFor, merchant } = await setup();
    const m = merchant('cafe-olaya');
    const client = clientFor(m);

    const connection = await client.checkConnection();
    expect(connection.body).toMatchObject({ tenantId: 'cafe-olaya', connection: 'AwaitingFirstSignedEvent' });
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    emulator.confirmBranch(m.tenantId, 'branch-olaya');
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    const earned = await client.send('InvoiceEarned', samplePayload('InvoiceEarned'));
    const lookup = await client.lookupCustomer({ phone: '+966500000001' });

    expect(earned.body).toEqual({
      eventId: earned.eventId,
      status: 'Processed',
      result: { pointsEarned: 8, stampsEarned: 0, balance: 8 },
    });
    expect(lookup.body).toMatchObject({
      customer: { externalCustomerId: 'cust-1001' },
      balance: { points: 8 },
    });
    await emulator.idle();
    expect(receiver.seen.map((s) => [s.eventType, s.tenantId])).toEqual([
      ['IntegrationStatusChanged', 'cafe-olaya'],
      ['LoyaltyRuleChanged', 'cafe-olaya'],
      ['LoyaltyRuleChanged', 'cafe-olaya'],
    ]);
    expect(emulator.deliveries().every((d) => d.status === 'delivered')).toBe(true);
  });

  it('gets a refused earn as LoyaltyApiError with the code, status and retryable of the catalogue', async () => {
    const { clientFor, merchant } = await setup();
    const client = clientFor(merchant());
    const error = await client
      .send('InvoiceEarned', samplePayload('InvoiceEarned'))
      .catch((err: unknown) => err);
    expect(error).toBeInstanceOf(LoyaltyApiError);
    expect(error).toMatchObject({
      status: 400,
      code: 'CUSTOMER_MAPPING_NOT_FOUND',
      retryable: false,
      attempts: 1,
    });
  });

  it('retries injected 503s with the same eventId and is credited once', async () => {
    const { emulator, clientFor, merchant } = await setup();
    const m = merchant();
    const client = clientFor(m);
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    emulator.confirmBranch(m.tenantId, 'branch-olaya');
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.injectFaults({ kinds: ['CONCURRENCY_CONFLICT', 'INTEGRATION_PAUSED'], times: 2, seed: 3 });
    const result = await client.send('InvoiceEarned', samplePayload('InvoiceEarned'));
    expect(result.attempts).toBe(3);
    expect(emulator.events({ eventId: result.eventId }).map((r) => r.outcome)).toEqual([
      'fault',
      'fault',
      'processed',
    ]);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(8);
  });

  it('gets the cached answer replayed after a timeout that struck once the earn was processed', async () => {
    const { emulator, clientFor, merchant } = await setup();
    const m = merchant();
    const client = clientFor(m, { timeoutMs: 200 });
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    emulator.confirmBranch(m.tenantId, 'branch-olaya');
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.injectFaults({ kinds: ['timeout-after-processing'], times: 1, endpoints: ['events'] });
    const result = await client.send('InvoiceEarned', samplePayload('InvoiceEarned'));
    expect(result.attempts).toBe(2);
    expect(emulator.events({ eventId: result.eventId }).map((r) => r.outcome)).toEqual([
      'processed',
      'replayed',
    ]);
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(8);
  });

  it('recovers from a skewed service clock: SIGNATURE_EXPIRED, offset learned from Date, retried', async () => {
    const { emulator, clientFor, merchant } = await setup();
    const client = clientFor(merchant());
    emulator.setClockSkew(900);
    const result = await client.send('BranchSynced', samplePayload('BranchSynced'));
    expect(result.attempts).toBe(2);
    expect(Math.round(client.clockOffsetMs / 1000)).toBeGreaterThanOrEqual(899);
  });

  it('works in process with the emulator as the client fetch', async () => {
    const { emulator, merchant } = await setup();
    const m = merchant();
    const client = new LoyaltyClient({
      baseUrl: 'http://loyalty.internal',
      apiKey: m.apiKey,
      signingSecret: m.signingSecret,
      fetch: emulator.fetch,
    });
    closers.push(() => client.close());
    await client.send('ProductSynced', samplePayload('ProductSynced'));
    expect(emulator.merchant(m.tenantId).products).toHaveLength(1);
  });

  it('has its deliveries retried while the receiver sees an expired signature, then delivered once clocks agree', async () => {
    const { emulator, url, receiver, merchant } = await setup({ clock: 'manual' });
    const m = merchant();
    const client = new LoyaltyClient({
      baseUrl: url,
      apiKey: m.apiKey,
      signingSecret: m.signingSecret,
      now: () => emulator.now().getTime(),
    });
    closers.push(() => client.close());
    emulator.setClockSkew(-600);
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    expect(emulator.deliveries().map((d) => [d.status, d.attempts[0]?.code])).toEqual(
      Array(3).fill(['retry-scheduled', 'SIGNATURE_EXPIRED']),
    );
    emulator.setClockSkew(0);
    await emulator.advance(60_000);
    expect(emulator.deliveries().map((d) => d.status)).toEqual(['delivered', 'delivered', 'delivered']);
    expect(receiver.seen).toHaveLength(3);
  });

  it('announces rule changes with growing ruleVersions, signed with both secrets during a rotation', async () => {
    const { emulator, receiver, secrets, clientFor, merchant } = await setup();
    const m = merchant();
    await clientFor(m).send('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    const newSecret = emulator.rotateSecret(m.tenantId);
    const stampRule = {
      stampCardId: 'card-coffee',
      name: 'Coffee',
      mode: 'PerVisit',
      minInvoiceAmount: 10,
      isActive: true,
    } as const;
    // A receiver that knows only the new secret, then only the old one: both must verify.
    secrets.set(m.tenantId, newSecret);
    const first = emulator.changeRule(m.tenantId, { ruleType: 'StampRule', payload: stampRule });
    await emulator.idle();
    secrets.set(m.tenantId, m.signingSecret);
    const second = emulator.changeRule(m.tenantId, {
      ruleType: 'StampRule',
      payload: { ...stampRule, minInvoiceAmount: 12 },
    });
    await emulator.idle();
    const rules = receiver.seen
      .filter((s) => s.eventType === 'LoyaltyRuleChanged')
      .map((s) => (s.payload as { ruleVersion: number }).ruleVersion);
    expect(rules.slice(-2)).toEqual([first, second]);
    expect(second).toBeGreaterThan(first ?? Number.POSITIVE_INFINITY);
    expect(emulator.deliveries().map((d) => d.status)).toEqual(Array(5).fill('delivered'));
  });
});
