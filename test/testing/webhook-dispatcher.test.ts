import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { parseSignatureHeader, verifySignature } from 'loyalty-partner-sdk/signature';
import { type Emulator, samplePayload, WEBHOOK_RETRY_LADDER_MS } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Hit, partner, startEmulator, startReceiver } from './helpers.js';

const MINUTE = 60_000;
// A merchant without rules: activation produces exactly one outbound event, IntegrationStatusChanged.
const bare = { rules: { earnRate: null, stampCards: [] } };

describe('webhook delivery and its retry ladder (spec 3.2, 5.3, 8)', () => {
  let emulator: Emulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  afterEach(async () => {
    await emulator.close();
    await receiver.close();
  });

  /** Starts a manual-clock emulator, a scripted receiver, and proves the merchant's credentials. */
  const setup = async (
    script: Parameters<typeof startReceiver>[0],
    options: Parameters<typeof startEmulator>[0] = {},
  ) => {
    receiver = await startReceiver(script);
    const started = await startEmulator({ clock: 'manual', ...options });
    emulator = started.emulator;
    const m = emulator.createMerchant({ ...bare, receiverUrl: receiver.url });
    await partner(started.url, m, () => emulator.now()).post('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    return m;
  };
  const only = () => emulator.deliveries()[0]!;
  const offsets = () => only().attempts.map((a) => (a.at - only().attempts[0]!.at) / MINUTE);

  it('attempts at 0, 1, 5, 15, 60 and 360 minutes after the first, then marks the delivery failed', async () => {
    await setup(() => ({ status: 503 }));
    for (const due of WEBHOOK_RETRY_LADDER_MS.slice(1)) {
      const attempts = only().attempts.length;
      await emulator.advance(due - (emulator.now().getTime() - only().attempts[0]!.at) - 1);
      expect(only().attempts).toHaveLength(attempts);
      await emulator.advance(1);
      expect(only().attempts).toHaveLength(attempts + 1);
    }
    await emulator.advance(24 * 60 * MINUTE);
    expect(offsets()).toEqual([0, 1, 5, 15, 60, 360]);
    expect(only()).toMatchObject({ status: 'failed', nextAttemptAt: null });
    expect(only().attempts.every((a) => a.status === 503 && a.verdict === 'retry')).toBe(true);
  });

  it('sends the same body under a fresh signature on every attempt', async () => {
    const m = await setup(() => ({ status: 500 }));
    await emulator.advance(6 * 60 * MINUTE);
    const bodies = new Set(receiver.hits.map((hit) => hit.body));
    const stamps = receiver.hits.map((hit) => {
      const header = String(hit.headers['x-signature']);
      return verifySignature(hit.body, header, m.signingSecret, {
        now: parseSignatureHeader(header).timestamp,
      }).timestamp;
    });
    expect(bodies.size).toBe(1);
    expect(new Set(stamps).size).toBe(6);
  });

  it('retries a 401 whose body carries SIGNATURE_EXPIRED, which lets a skewed clock recover', async () => {
    await setup((_hit, index) =>
      index === 0 ? { status: 401, body: { code: 'SIGNATURE_EXPIRED', message: 'old' } } : { status: 204 },
    );
    await emulator.advance(MINUTE);
    expect(offsets()).toEqual([0, 1]);
    expect(only().status).toBe('delivered');
    expect(only().attempts[0]).toMatchObject({ status: 401, code: 'SIGNATURE_EXPIRED', verdict: 'retry' });
  });

  it.each([400, 401, 404, 409])('does not retry a %i that is not SIGNATURE_EXPIRED', async (status) => {
    await setup(() => ({ status, body: { code: 'INVALID_SIGNATURE', message: 'no' } }));
    await emulator.advance(7 * 60 * MINUTE);
    expect(only()).toMatchObject({ status: 'rejected', nextAttemptAt: null });
    expect(receiver.hits).toHaveLength(1);
  });

  it.each([429, 500, 502])('retries a %i', async (status) => {
    await setup((_hit, index) => (index === 0 ? { status } : { status: 200 }));
    await emulator.advance(MINUTE);
    expect(only().attempts.map((a) => a.status)).toEqual([status, 200]);
    expect(only().status).toBe('delivered');
  });

  it('retries a dropped connection as a network failure', async () => {
    await setup((_hit, index) => (index === 0 ? 'reset' : { status: 200 }));
    await emulator.advance(MINUTE);
    expect(only().attempts.map((a) => a.error)).toEqual(['network', null]);
    expect(only().status).toBe('delivered');
  });

  it('retries a receiver that does not answer within deliveryTimeoutMs', async () => {
    // Long enough for the second attempt's 200 to arrive on a loaded machine (50 ms once was not).
    await setup((_hit, index) => (index === 0 ? 'hang' : { status: 200 }), { deliveryTimeoutMs: 5_000 });
    await emulator.advance(MINUTE);
    expect(only().attempts.map((a) => a.error)).toEqual(['timeout', null]);
  });

  it('carries X-TenantId, X-Correlation-Id (the envelope correlationId) and a signature of the raw body', async () => {
    const m = await setup(() => ({ status: 200 }));
    const hit = receiver.hits[0] as Hit;
    const envelope = JSON.parse(hit.body);
    expect(hit.headers['x-tenantid']).toBe(m.tenantId);
    expect(hit.headers['x-correlation-id']).toBe(envelope.correlationId);
    expect(envelope).toMatchObject({
      eventType: 'IntegrationStatusChanged',
      sourceSystem: 'Loyalty',
      entityType: 'Integration',
      entityId: m.tenantId,
      schemaVersion: 1,
    });
    const now = Math.floor(emulator.now().getTime() / 1000);
    expect(
      verifySignature(hit.body, String(hit.headers['x-signature']), m.signingSecret, { now }).timestamp,
    ).toBe(now);
  });

  it('queues what is produced before the first signed POST and delivers it, in order, after', async () => {
    receiver = await startReceiver();
    const started = await startEmulator({ clock: 'manual' });
    emulator = started.emulator;
    const m = emulator.createMerchant({ ...bare, receiverUrl: receiver.url });
    emulator.setStatus(m.tenantId, 'Disabled');
    emulator.setStatus(m.tenantId, 'Enabled');
    await partner(started.url, m).get('/connection');
    await emulator.advance(60 * MINUTE);
    expect(receiver.hits).toHaveLength(0);
    expect(emulator.deliveries().map((d) => d.status)).toEqual(['queued', 'queued', 'queued']);
    await partner(started.url, m, () => emulator.now()).post('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    expect(receiver.hits.map((hit) => JSON.parse(hit.body).payload.status)).toEqual([
      'Enabled',
      'Disabled',
      'Enabled',
    ]);
  });

  it('keeps deliveries queued without a receiver URL, and sends them once one is set', async () => {
    receiver = await startReceiver();
    const started = await startEmulator();
    emulator = started.emulator;
    const m = emulator.createMerchant(bare);
    await partner(started.url, m).post('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    expect(only().status).toBe('queued');
    emulator.setReceiverUrl(m.tenantId, receiver.url);
    await emulator.idle();
    expect(only().status).toBe('delivered');
  });

  it('runs the whole ladder on the system clock when timeScale shrinks the waits', async () => {
    await setup(() => ({ status: 503 }), { clock: 'system', timeScale: 0.00001 });
    await vi.waitFor(() => expect(only().status).toBe('failed'), { timeout: 20_000, interval: 20 });
    expect(only().attempts).toHaveLength(6);
  });
});

describe('webhook delivery reading an answer that does not end', () => {
  let emulator: Emulator | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await emulator?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  });

  async function deliverTo(answer: (res: ServerResponse) => void, deliveryTimeoutMs: number) {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    const started = await startEmulator({ clock: 'manual', deliveryTimeoutMs });
    emulator = started.emulator;
    const m = emulator.createMerchant({ ...bare, receiverUrl });
    await partner(started.url, m, () => emulator!.now()).post('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    return emulator.deliveries()[0]!;
  }

  it('judges a 200 whose gzip body inflates without end by its status, reading 1 MiB at most', async () => {
    const bomb = gzipSync(Buffer.alloc(64 << 20));
    const delivery = await deliverTo((res) => {
      res.writeHead(200, { 'content-encoding': 'gzip', 'content-length': bomb.length });
      res.end(bomb);
    }, 20_000);
    expect(delivery).toMatchObject({
      status: 'delivered',
      attempts: [{ status: 200, verdict: 'delivered' }],
    });
  });

  it('counts a body still trickling in at the delivery timeout as a timeout, and retries', async () => {
    const delivery = await deliverTo((res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': 1000 });
      res.write('{');
    }, 300);
    expect(delivery).toMatchObject({
      status: 'retry-scheduled',
      attempts: [{ status: null, error: 'timeout', verdict: 'retry' }],
    });
  });
});
