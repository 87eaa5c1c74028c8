import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partner } from './helpers.js';

const BASE = 'https://loyalty.example.test';
const emulator = createEmulator();
const server = setupServer();

describe('msw handlers', () => {
  beforeAll(async () => {
    server.use(...(await emulator.mswHandlers(BASE)));
    server.listen({ onUnhandledRequest: 'error' });
  });
  afterAll(async () => {
    server.close();
    await emulator.close();
  });

  it('answers fetch calls to the partner endpoints below the base URL from the emulator', async () => {
    const m = emulator.createMerchant();
    const answer = await partner(BASE, m).post('CustomerSynced', samplePayload('CustomerSynced'));
    expect(answer.status).toBe(200);
    expect(emulator.merchant(m.tenantId).connection).toBe('Active');
    expect(emulator.events({ tenantId: m.tenantId })).toHaveLength(1);
  });

  it('answers errors with the contract envelope, as over HTTP', async () => {
    const answer = await partner(BASE, { apiKey: 'lk_test_nobody', signingSecret: 'whsec_x' }).get(
      '/connection',
    );
    expect([answer.status, answer.body.code]).toEqual([401, 'INVALID_API_KEY']);
  });

  it('turns a reset fault into a network error', async () => {
    const m = emulator.createMerchant();
    emulator.injectFaults({ kinds: ['reset'], times: 1 });
    await expect(
      fetch(`${BASE}/api/partner/v1/connection`, { headers: { 'x-api-key': m.apiKey } }),
    ).rejects.toThrow(TypeError);
  });

  it('is the same as emulator.mswHandlers', async () => {
    const handlers = await emulator.mswHandlers(`${BASE}/`);
    expect(handlers).toHaveLength(1);
    expect(handlers[0]?.info.path).toBe(`${BASE}/api/partner/v1/*`);
  });
});
