import { createEnvelope, EVENT_TYPES, type InboundEventType } from 'loyalty-partner-sdk';
import { type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { INBOUND_EVENT_TYPES, OUTBOUND_EVENT_TYPES } from '../../src/contract/index.js';
import { earn, emulatorPerTest, partner, readyMerchant } from './helpers.js';

/** The contract's 24 h replay window (spec 8). */
const DAY_MS = 24 * 60 * 60 * 1000;

describe('POST /api/partner/v1/events', () => {
  const start = emulatorPerTest();

  it('replays the cached response to a retried eventId without running the handler again', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    const first = await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    const retry = await m.partner.post('InvoiceEarned', earn('inv-1', 50), { eventId: first.eventId });
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get('x-correlation-id')).toBe(first.headers.get('x-correlation-id'));
    expect(emulator.balance(m.tenantId, 'cust-1001').points).toBe(5);
    expect(emulator.events({ eventId: first.eventId }).map((r) => r.outcome)).toEqual([
      'processed',
      'replayed',
    ]);
    // The log keeps the id the service made for the first answer (a UUID, each request its own).
    const [logged, replayed] = emulator.events({ eventId: first.eventId });
    expect(logged?.correlationId).toBe(first.headers.get('x-correlation-id'));
    expect(logged?.correlationId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(replayed?.correlationId).not.toBe(logged?.correlationId);
  });

  it('forgets a cached response after 24 hours and processes the eventId afresh', async () => {
    const { emulator, url } = await start({ clock: 'manual' });
    const m = await readyMerchant(emulator, url);
    const first = await m.partner.post('InvoiceEarned', earn('inv-1', 50));
    await emulator.advance(DAY_MS - 1);
    const within = await m.partner.post('InvoiceEarned', earn('inv-1', 50), { eventId: first.eventId });
    await emulator.advance(1);
    const after = await m.partner.post('InvoiceEarned', earn('inv-1', 50), { eventId: first.eventId });
    expect(within.status).toBe(200);
    expect([after.status, after.body.code]).toEqual([400, 'PARTNER_INVOICE_ALREADY_EARNED']);
  });

  it('never caches a refused event: the same eventId is processed again once the setup is fixed', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    await m.partner.post('BranchSynced', { externalBranchId: 'branch-malqa', name: 'Malqa', isActive: true });
    const refused = await m.partner.post('InvoiceEarned', {
      ...earn('inv-1', 50),
      externalBranchId: 'branch-malqa',
    });
    emulator.confirmBranch(m.tenantId, 'branch-malqa');
    const redelivered = await m.partner.post(
      'InvoiceEarned',
      { ...earn('inv-1', 50), externalBranchId: 'branch-malqa' },
      { eventId: refused.eventId },
    );
    expect(refused.body.code).toBe('BRANCH_MAPPING_UNCONFIRMED');
    expect(redelivered.status).toBe(200);
    expect(emulator.events({ eventId: refused.eventId }).map((r) => r.outcome)).toEqual([
      'rejected',
      'processed',
    ]);
  });

  it.each(INBOUND_EVENT_TYPES.filter((type) => EVENT_TYPES[type].availability === 'Planned'))(
    'answers the Planned %s with 503 EVENT_HANDLER_NOT_REGISTERED until its handler ships',
    async (eventType: InboundEventType) => {
      const { emulator, url } = await start();
      const m = await readyMerchant(emulator, url);
      const before = await m.partner.post(eventType, samplePayload(eventType));
      emulator.shipHandler(eventType as Parameters<Emulator['shipHandler']>[0]);
      const after = await m.partner.post(eventType, samplePayload(eventType), { eventId: before.eventId });
      expect([before.status, before.body.code]).toEqual([503, 'EVENT_HANDLER_NOT_REGISTERED']);
      expect(after.status).toBe(200);
    },
  );

  it('processes a shipped batch like the single sync events, item by item', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    emulator.shipHandler('CustomersSyncedBatch');
    await m.partner.post('CustomersSyncedBatch', samplePayload('CustomersSyncedBatch'));
    expect(emulator.merchant(m.tenantId).customers.map((c) => c.externalCustomerId)).toEqual([
      'cust-1001',
      'cust-1002',
    ]);
  });

  it.each(OUTBOUND_EVENT_TYPES)('answers a posted %s with 400 WRONG_EVENT_DIRECTION', async (eventType) => {
    const { emulator, url } = await start();
    const envelope = createEnvelope(eventType, samplePayload(eventType), { entityId: 'e-1' });
    const answer = await partner(url, emulator.createMerchant()).postRaw(JSON.stringify(envelope));
    expect([answer.status, answer.body.code]).toEqual([400, 'WRONG_EVENT_DIRECTION']);
  });

  it('answers INVALID_PAYLOAD to a missing required field and names the field', async () => {
    const { emulator, url } = await start();
    const envelope = createEnvelope('BranchSynced', samplePayload('BranchSynced'));
    const { name: _name, ...payload } = envelope.payload;
    const answer = await partner(url, emulator.createMerchant()).postRaw(
      JSON.stringify({ ...envelope, payload }),
    );
    expect([answer.status, answer.body.code]).toEqual([400, 'INVALID_PAYLOAD']);
    expect(answer.body.message).toContain('payload.name');
  });

  it('answers INVALID_PAYLOAD to a schemaVersion other than 1', async () => {
    const { emulator, url } = await start();
    const envelope = { ...createEnvelope('BranchSynced', samplePayload('BranchSynced')), schemaVersion: 2 };
    const answer = await partner(url, emulator.createMerchant()).postRaw(JSON.stringify(envelope));
    expect(answer.body.code).toBe('INVALID_PAYLOAD');
  });

  it('answers a success with { eventId, status: Processed } and echoes a caller correlation id', async () => {
    const { emulator, url } = await start();
    const m = emulator.createMerchant();
    const response = await fetch(`${url}/api/partner/v1/connection`, {
      headers: { 'x-api-key': m.apiKey, 'x-correlation-id': 'pos-42:abc' },
    });
    const answer = await partner(url, m).post('CouponSynced', samplePayload('CouponSynced'));
    expect(response.headers.get('x-correlation-id')).toBe('pos-42:abc');
    expect(answer.body).toEqual({ eventId: answer.eventId, status: 'Processed' });
    expect(answer.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('records each request with its tenant, event, status, code and outcome', async () => {
    const { emulator, url } = await start();
    const m = await readyMerchant(emulator, url);
    await m.partner.post('InvoiceEarned', earn('inv-1', 10), { secret: 'whsec_wrong' });
    expect(emulator.events({ tenantId: m.tenantId }).at(-1)).toMatchObject({
      method: 'POST',
      path: '/api/partner/v1/events',
      endpoint: 'events',
      status: 401,
      code: 'INVALID_SIGNATURE',
      outcome: 'rejected',
      fault: null,
    });
  });
});
