import { createEmulator, type MerchantCredentials, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/real-servers.js';
import { runBin } from './bin.js';

const emulator = createEmulator();
let merchant: MerchantCredentials;
let env: Record<string, string>;

beforeAll(async () => {
  const { url } = await emulator.listen();
  merchant = emulator.createMerchant({ autoConfirmBranches: true });
  env = {
    LOYALTY_BASE_URL: url,
    LOYALTY_API_KEY: merchant.apiKey,
    LOYALTY_SIGNING_SECRET: merchant.signingSecret,
  };
});
afterAll(() => emulator.close());

const send = (args: string[], payload: unknown, extraEnv: Record<string, string> = {}) =>
  runBin(['send', ...args, '--payload', '-'], {
    env: { ...env, ...extraEnv },
    stdin: JSON.stringify(payload),
  });

const noCredentials = (text: string) => {
  expect(text).not.toContain(merchant.apiKey);
  expect(text).not.toContain(merchant.signingSecret);
};

describe('loyalty-partner send (the built bin, against an emulator in this process)', () => {
  it('posts the event and prints its eventId, status, attempts, correlationId and the answer', async () => {
    const result = await send(['BranchSynced'], samplePayload('BranchSynced'));
    expect(result.code).toBe(0);
    const [, eventId, correlationId] =
      /^accepted: BranchSynced eventId (\S+) \(HTTP 200, 1 attempt, correlationId (\S+)\)\n/.exec(
        result.stdout,
      ) ?? [];
    expect(emulator.events({ eventId }).map((r) => [r.outcome, r.correlationId])).toEqual([
      ['processed', correlationId],
    ]);
    expect(result.stdout).toContain(`{"eventId":"${eventId}","status":"Processed"}`);
    noCredentials(result.stdout + result.stderr);
  });

  it('prints one JSON object with --json, and keeps a given eventId and correlationId', async () => {
    const eventId = '019a8f3e-7b7c-7a4e-8c5d-1f2e3d4c5b6a';
    const correlationId = '6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
    const result = await send(
      ['CustomerSynced', '--json', '--event-id', eventId, '--correlation-id', correlationId],
      samplePayload('CustomerSynced'),
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({
      eventType: 'CustomerSynced',
      eventId,
      status: 200,
      attempts: 1,
      body: { eventId, status: 'Processed' },
    });
    expect(emulator.events({ eventId })).toHaveLength(1);
  });

  it('refuses an invalid payload locally with exit 2, naming every field path, and sends nothing', async () => {
    const before = emulator.events().length;
    const { externalBranchId: _omitted, ...payload } = samplePayload('InvoiceEarned');
    const result = await send(['InvoiceEarned'], { ...payload, channel: 'Web' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: refused locally, nothing was sent: INVALID_PAYLOAD: .*\n$/);
    expect(result.stderr).toContain('payload.externalBranchId is required');
    expect(result.stderr).toContain('payload.channel ');
    const stamps = await send(['InvoiceEarned'], { ...samplePayload('InvoiceEarned'), earnType: 'Stamps' });
    expect(stamps).toMatchObject({
      code: 2,
      stderr:
        'error: refused locally, nothing was sent: INVALID_PAYLOAD: payload.stampCardId is required when earnType is Stamps\n',
    });
    expect(emulator.events()).toHaveLength(before);
  });

  it('refuses an outbound event type locally with exit 2 (WRONG_EVENT_DIRECTION)', async () => {
    const result = await send(['LoyaltyRuleChanged'], samplePayload('LoyaltyRuleChanged'));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: refused locally, nothing was sent: WRONG_EVENT_DIRECTION: /);
  });

  it("reports the service's refusal with exit 1: code, status, the catalogue's action and remedy, correlationId", async () => {
    const payload = { ...samplePayload('InvoiceEarned'), externalCustomerId: 'cust-unknown' };
    const result = await send(['InvoiceEarned'], payload);
    expect(result.code).toBe(1);
    const correlationId = emulator.events({ eventType: 'InvoiceEarned' }).at(-1)?.correlationId;
    expect(result.stderr).toBe(
      'error: the service refused the event: CUSTOMER_MAPPING_NOT_FOUND (HTTP 400) after 1 attempt. ' +
        `fix-setup: Send CustomerSynced first, then redeliver the same event. correlationId ${correlationId}\n`,
    );
    noCredentials(result.stderr);
  });

  it('exits 3 when the service stays unavailable, with the eventId to send again', async () => {
    emulator.pause(merchant.tenantId);
    try {
      const result = await send(['BranchSynced', '--no-retry'], samplePayload('BranchSynced'));
      expect(result.code).toBe(3);
      expect(result.stderr).toMatch(
        /^error: the service stayed unavailable: INTEGRATION_PAUSED \(HTTP 503\) after 1 attempt\. retry: .* send it again later with --event-id \S+\n$/,
      );
    } finally {
      emulator.resume(merchant.tenantId);
    }
  });

  it('exits 3 when nothing answers', async () => {
    const port = await freePort();
    const result = await send(['BranchSynced', '--no-retry'], samplePayload('BranchSynced'), {
      LOYALTY_BASE_URL: `http://127.0.0.1:${port}`,
    });
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(
      /^error: no answer from the service: NETWORK_ERROR \(ECONNREFUSED\) after 1 attempt; send it again later with --event-id \S+\n$/,
    );
  });

  it('exits 2 naming the variable when a setting is missing, and for a payload that is not JSON', async () => {
    const missing = await runBin(['send', 'BranchSynced', '--payload', '-'], {
      env: { LOYALTY_BASE_URL: env.LOYALTY_BASE_URL ?? '' },
      stdin: '{}',
    });
    expect(missing).toMatchObject({
      code: 2,
      stderr: 'error: set LOYALTY_API_KEY to the API key issued at activation\n',
    });
    const garbled = await runBin(['send', 'BranchSynced', '--payload', '-'], { env, stdin: '{"name":' });
    expect(garbled.code).toBe(2);
    expect(garbled.stderr).toMatch(/^error: --payload \(stdin\) is not valid JSON: /);
  });

  it('says when an --event-id answer was the first one replayed, and when it was new', async () => {
    const eventId = '01966b5c-7d3e-7a10-8a5e-1c2f3a4b5c6d';
    const first = await send(['BranchSynced', '--event-id', eventId], samplePayload('BranchSynced'));
    expect(first.stdout).toMatch(/^accepted: BranchSynced eventId 01966b5c/);
    expect(first.stdout).toContain('This eventId was new: the service processed it.\n');
    const again = await send(['BranchSynced', '--event-id', eventId], samplePayload('BranchSynced'));
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^replayed: BranchSynced eventId 01966b5c/);
    expect(again.stdout).toContain(
      'the service replayed its first answer (cached for 24 h) and processed nothing again',
    );
  });
});
