import { LoyaltyClient } from 'loyalty-partner-sdk';
import { memoryStore, outboxStatusHandler } from 'loyalty-partner-sdk/outbox';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import { createReceiver, type Receiver } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { customer, fastOutbox, recordingHooks } from './fixtures/outbox-harness.js';
import { scriptedSender } from './fixtures/scripted-sender.js';

const statusEvent = (status: 'Enabled' | 'Disabled' | 'Disconnected') => ({ payload: { status } });
const ctx = (tenantId: string) => ({
  tenantId,
  correlationId: undefined,
  signatureTimestamp: 0,
  receivedAt: new Date(),
});

describe('outboxStatusHandler', () => {
  it.each(['Disabled', 'Disconnected'] as const)(
    'stops the tenant on %s and resumes it on Enabled',
    async (status) => {
      const recorder = recordingHooks();
      const { sender, calls } = scriptedSender();
      const outbox = fastOutbox({ clientFor: () => sender, store: memoryStore(), hooks: recorder.hooks });
      await outbox.start();
      const onStatus = outboxStatusHandler(outbox);

      await onStatus(statusEvent(status), ctx('merchant-7'));
      await outbox.enqueue('CustomerSynced', customer, { tenantId: 'merchant-7' });
      await outbox.enqueue('CustomerSynced', customer, { tenantId: 'merchant-8' });
      const stopped = await outbox.flush();
      expect(stopped.tenants).toEqual([
        expect.objectContaining({ tenantId: 'merchant-7', state: 'stopped', reason: status, pending: 1 }),
        expect.objectContaining({ tenantId: 'merchant-8', state: 'active', pending: 0 }),
      ]);
      expect(recorder.named('onTenantStopped')).toEqual([{ tenantId: 'merchant-7', reason: status }]);

      await onStatus(statusEvent('Enabled'), ctx('merchant-7'));
      const resumed = await outbox.flush();
      await outbox.close();
      expect(resumed.tenants[0]).toMatchObject({ tenantId: 'merchant-7', state: 'active', pending: 0 });
      expect(calls).toHaveLength(2);
    },
  );

  it('asks clientFor again on Enabled, so a reconnected tenant sends with its fresh credentials', async () => {
    const issued: string[] = [];
    const old = scriptedSender();
    const fresh = scriptedSender();
    const outbox = fastOutbox({
      clientFor: (tenantId) => {
        issued.push(tenantId);
        return issued.length === 1 ? old.sender : fresh.sender;
      },
      store: memoryStore(),
    });
    await outbox.start();
    const onStatus = outboxStatusHandler(outbox);
    await outbox.enqueue('CustomerSynced', customer, { tenantId: 'merchant-7' });
    await outbox.flush();
    await onStatus(statusEvent('Disconnected'), ctx('merchant-7'));
    await outbox.enqueue(
      'CustomerSynced',
      { ...customer, phone: '+966500000002' },
      { tenantId: 'merchant-7' },
    );
    await onStatus(statusEvent('Enabled'), ctx('merchant-7'));
    await outbox.flush();
    await outbox.close();

    expect(issued).toEqual(['merchant-7', 'merchant-7']);
    expect(old.calls).toHaveLength(1);
    expect(fresh.calls).toHaveLength(1);
  });

  it('changes nothing for a status this version does not know', async () => {
    const outbox = fastOutbox({ clientFor: () => scriptedSender().sender, store: memoryStore() });
    await outbox.start();
    await outboxStatusHandler(outbox)({ payload: { status: 'Archived' } }, ctx('merchant-7'));
    expect(outbox.stats().tenants).toEqual([]);
    await outbox.close();
  });
});

describe('outboxStatusHandler behind a receiver', () => {
  it('stops and resumes the outbox when the emulated merchant disables and enables the integration', async () => {
    let receiver: Receiver | undefined;
    const receiverFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const answer = await receiver!.handle({
        rawBody: new Uint8Array(await request.arrayBuffer()),
        headers: request.headers,
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    };
    const emulator = createEmulator({ receiverUrl: 'http://receiver.test/loyalty', fetch: receiverFetch });
    const { url } = await emulator.listen();
    const merchant = emulator.createMerchant({ autoConfirmBranches: true });
    const client = new LoyaltyClient({
      baseUrl: url,
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
    });
    const outbox = fastOutbox({ client, store: memoryStore(), defaultTenantId: merchant.tenantId });
    receiver = createReceiver({
      secrets: () => merchant.signingSecret,
      handlers: { IntegrationStatusChanged: outboxStatusHandler(outbox) },
    });
    try {
      await outbox.start();
      await outbox.enqueue('CustomerSynced', customer);
      await outbox.flush();
      await emulator.idle();

      emulator.setStatus(merchant.tenantId, 'Disabled');
      await emulator.idle();
      await outbox.enqueue('CustomerSynced', { ...customer, externalCustomerId: 'cust-2' });
      const stopped = await outbox.flush();
      expect(stopped.tenants).toEqual([
        expect.objectContaining({ state: 'stopped', reason: 'Disabled', pending: 1 }),
      ]);
      expect(emulator.events({ tenantId: merchant.tenantId })).toHaveLength(1);

      emulator.setStatus(merchant.tenantId, 'Enabled');
      await emulator.idle();
      const resumed = await outbox.flush();
      expect(resumed.tenants).toEqual([expect.objectContaining({ state: 'active', pending: 0 })]);
      expect(emulator.merchant(merchant.tenantId).customers).toHaveLength(2);
    } finally {
      await outbox.close();
      await client.close();
      await emulator.close();
    }
  });
});
