import { verifySignature } from 'loyalty-partner-sdk/signature';
import { DEFAULT_RULES, samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { delivered, emulatorPerTest, partner, type Receiver } from './helpers.js';

// Spec 3.1, one test per row: the connection lifecycle of a merchant, driven over HTTP.
describe('the integration connection of a merchant (spec 3.1)', () => {
  const start = emulatorPerTest();

  const statusesDelivered = (receiver: Receiver) =>
    delivered(receiver, 'IntegrationStatusChanged').map((e) => e.payload.status);

  it('answers any request of a merchant that never activated with 401 INTEGRATION_NOT_CONNECTED', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ activated: false, receiverUrl: receiver.url });
    const p = partner(url, credentials);
    const event = await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    const connection = await p.get('/connection');
    expect([event.status, event.body.code]).toEqual([401, 'INTEGRATION_NOT_CONNECTED']);
    expect([connection.status, connection.body.code]).toEqual([401, 'INTEGRATION_NOT_CONNECTED']);
    expect(emulator.merchant(credentials.tenantId).connection).toBe('NeverActivated');
  });

  it('issues working credentials on activation but sends no webhook, queueing what it produces', async () => {
    const { emulator, url, receiver } = await start();
    const { tenantId } = emulator.createMerchant({ activated: false, receiverUrl: receiver.url });
    const credentials = emulator.activate(tenantId);
    emulator.changeRule(tenantId, {
      ruleType: 'EarnRate',
      payload: { ...DEFAULT_RULES.earnRate, pointCostAmount: 5 },
    });
    await emulator.idle();
    expect(receiver.hits).toHaveLength(0);
    expect(emulator.deliveries({ tenantId }).map((d) => d.status)).toEqual([
      'queued',
      'queued',
      'queued',
      'queued',
    ]);
    expect((await partner(url, credentials).get('/connection')).status).toBe(200);
    expect(emulator.merchant(tenantId).connection).toBe('AwaitingFirstSignedEvent');
  });

  it('becomes active on the first signed POST /events and delivers the queued events then', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const p = partner(url, credentials);
    const forged = await p.post('CustomerSynced', samplePayload('CustomerSynced'), { secret: 'whsec_wrong' });
    await emulator.idle();
    expect(forged.body.code).toBe('INVALID_SIGNATURE');
    expect(receiver.hits).toHaveLength(0);

    expect((await p.post('CustomerSynced', samplePayload('CustomerSynced'))).status).toBe(200);
    await emulator.idle();
    expect(emulator.merchant(credentials.tenantId).connection).toBe('Active');
    expect(receiver.hits.map((hit) => JSON.parse(hit.body).eventType)).toEqual([
      'IntegrationStatusChanged',
      'LoyaltyRuleChanged',
      'LoyaltyRuleChanged',
    ]);
  });

  it('confirms the key on an unsigned GET /connection without starting delivery', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const answer = await partner(url, credentials).get('/connection');
    await emulator.idle();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      tenantId: credentials.tenantId,
      environment: 'testing',
      status: 'Enabled',
      connection: 'AwaitingFirstSignedEvent',
    });
    expect(receiver.hits).toHaveLength(0);
    expect(emulator.merchant(credentials.tenantId).connection).toBe('AwaitingFirstSignedEvent');
  });

  it('sends IntegrationStatusChanged Enabled when the merchant enables the integration again', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const p = partner(url, credentials);
    await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.setStatus(credentials.tenantId, 'Disabled');
    emulator.setStatus(credentials.tenantId, 'Enabled');
    await emulator.idle();
    expect(statusesDelivered(receiver)).toEqual(['Enabled', 'Disabled', 'Enabled']);
    expect((await p.post('CustomerSynced', samplePayload('CustomerSynced'))).status).toBe(200);
  });

  it('sends IntegrationStatusChanged Disabled and refuses events while the integration is disabled', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const p = partner(url, credentials);
    await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.setStatus(credentials.tenantId, 'Disabled');
    await emulator.idle();
    const refused = await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    expect(statusesDelivered(receiver)).toEqual(['Enabled', 'Disabled']);
    expect([refused.status, refused.body.code]).toEqual([401, 'INTEGRATION_NOT_CONNECTED']);
    expect(emulator.merchant(credentials.tenantId).connection).toBe('Disabled');
  });

  it('sends Disconnected, answers 401 INTEGRATION_ALREADY_DISCONNECTED, and needs fresh credentials', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const old = partner(url, credentials);
    await old.post('CustomerSynced', samplePayload('CustomerSynced'));
    emulator.setStatus(credentials.tenantId, 'Disconnected');
    await emulator.idle();
    const refused = await old.post('CustomerSynced', samplePayload('CustomerSynced'));
    expect(statusesDelivered(receiver)).toEqual(['Enabled', 'Disconnected']);
    expect([refused.status, refused.body.code]).toEqual([401, 'INTEGRATION_ALREADY_DISCONNECTED']);
    expect(() => emulator.setStatus(credentials.tenantId, 'Enabled')).toThrow(/reconnect/);

    const fresh = emulator.reconnect(credentials.tenantId);
    expect(fresh.apiKey).not.toBe(credentials.apiKey);
    expect((await old.post('CustomerSynced', samplePayload('CustomerSynced'))).body.code).toBe(
      'INVALID_API_KEY',
    );
    expect((await partner(url, fresh).post('CustomerSynced', samplePayload('CustomerSynced'))).status).toBe(
      200,
    );
  });

  it('answers 503 INTEGRATION_PAUSED while paused, and processes again after resume', async () => {
    const { emulator, url } = await start();
    const credentials = emulator.createMerchant();
    const p = partner(url, credentials);
    emulator.pause(credentials.tenantId);
    const paused = await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    expect([paused.status, paused.body.code]).toEqual([503, 'INTEGRATION_PAUSED']);
    expect(emulator.merchant(credentials.tenantId).paused).toBe(true);
    emulator.resume(credentials.tenantId);
    expect(
      (await p.post('CustomerSynced', samplePayload('CustomerSynced'), { eventId: paused.eventId })).status,
    ).toBe(200);
  });

  it('accepts either secret during a rotation and signs each delivery with both', async () => {
    const { emulator, url, receiver } = await start();
    const credentials = emulator.createMerchant({ receiverUrl: receiver.url });
    const newSecret = emulator.rotateSecret(credentials.tenantId);
    const p = partner(url, credentials);
    expect((await p.post('CustomerSynced', samplePayload('CustomerSynced'))).status).toBe(200);
    expect(
      (await p.post('CustomerSynced', samplePayload('CustomerSynced'), { secret: newSecret })).status,
    ).toBe(200);
    await emulator.idle();
    const hit = receiver.hits[0]!;
    const header = String(hit.headers['x-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(hit.body, header, credentials.signingSecret).secretIndex).toBe(0);
    expect(verifySignature(hit.body, header, newSecret).secretIndex).toBe(0);

    emulator.completeRotation(credentials.tenantId);
    const retired = await p.post('CustomerSynced', samplePayload('CustomerSynced'));
    expect(retired.body.code).toBe('INVALID_SIGNATURE');
    expect(emulator.merchant(credentials.tenantId).activeSecretCount).toBe(1);
  });
});
