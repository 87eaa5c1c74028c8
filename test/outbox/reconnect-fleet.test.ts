import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, memoryStore, type Outbox } from 'loyalty-partner-sdk/outbox';
import { createEmulator, type Emulator } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { forward } from './fixtures/forward.js';
import { until } from './fixtures/outbox-harness.js';

/*
 * A fleet of real outboxes on loopback loses its link together and gets it back. A gateway in
 * front of the emulator holds each request a moment, then resets it while the link is down and
 * forwards it once it is up, noting per kiosk which requests were under way together. What is
 * asserted is order and counts, never how long anything took (reconnect-window.test.ts checks
 * the times on a fake clock).
 */

const FLEET = 12;
const EVENTS = 4;
const WINDOW_MS = 1_500;
/** How long the gateway holds a request before answering or resetting it. */
const HOLD_MS = 30;

interface Arrival {
  readonly kiosk: string;
  /** Requests of the same kiosk under way at the gateway when this one arrived. */
  readonly alongside: number;
  /** The link was up when it arrived (it is forwarded). */
  readonly up: boolean;
  /** Another request of the same kiosk arrived before this one was answered. */
  overtaken: boolean;
  /** A refused request: the kiosk's link is down, as far as it knows from now on. */
  refusedAt?: number;
}

let emulator: Emulator;
let gateway: Server;
let gatewayUrl: string;
let linkUp: boolean;
let arrivals: Arrival[];
const clients: LoyaltyClient[] = [];

beforeEach(async () => {
  emulator = createEmulator();
  const { url } = await emulator.listen();
  linkUp = false;
  arrivals = [];
  const underWay = new Map<string, Arrival[]>();
  gateway = createServer((req, res) => {
    const kiosk = String(req.headers['x-api-key']);
    const mine = underWay.get(kiosk) ?? [];
    underWay.set(kiosk, mine);
    for (const other of mine) other.overtaken = true;
    const arrival: Arrival = { kiosk, alongside: mine.length, up: linkUp, overtaken: false };
    arrivals.push(arrival);
    mine.push(arrival);
    const done = () => mine.splice(mine.indexOf(arrival), 1);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
      if (!arrival.up) {
        done();
        arrival.refusedAt = arrivals.length;
        req.socket.destroy();
        return;
      }
      const answer = await forward(url, req, chunks);
      done();
      res.writeHead(answer.status, answer.headers);
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => gateway.listen(0, '127.0.0.1', resolve));
  gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  gateway.closeAllConnections();
  await new Promise((resolve) => gateway.close(resolve));
  await emulator.close();
});

/** The fleet, each kiosk with a backlog of independent events, the link down from the start. */
async function fleet(reconnectWindowMs: number) {
  const merchants = Array.from({ length: FLEET }, () =>
    emulator.createMerchant({ autoConfirmBranches: true }),
  );
  const outboxes: Outbox[] = [];
  for (const merchant of merchants) {
    const client = new LoyaltyClient({
      baseUrl: gatewayUrl,
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
      retry: { maxAttempts: 1 },
    });
    clients.push(client);
    const outbox = createOutbox({
      client,
      store: memoryStore(),
      defaultTenantId: merchant.tenantId,
      retryDelayMs: 50,
      maxRetryDelayMs: 400,
      reconnectWindowMs,
    });
    outboxes.push(outbox);
    await outbox.start();
    // Its first round: the whole backlog at once (held until it is all queued).
    await outbox.stopTenant(merchant.tenantId, 'loading');
    for (let i = 0; i < EVENTS; i++) {
      await outbox.enqueue('BranchSynced', {
        externalBranchId: `branch-${i}`,
        name: `Shop ${i}`,
        isActive: true,
      });
    }
  }
  for (const [i, outbox] of outboxes.entries()) await outbox.resumeTenant(merchants[i]!.tenantId);
  // The outage outlasts the window: every kiosk was refused, then the window passed, then each
  // was refused again (so each has been offline for longer than the window).
  const refused = (kiosk: string) => arrivals.filter((a) => a.kiosk === kiosk && !a.up).length;
  await until(() => merchants.every((merchant) => refused(merchant.apiKey) > 0));
  await new Promise((resolve) => setTimeout(resolve, reconnectWindowMs + 100));
  const before = new Map(merchants.map((merchant) => [merchant.apiKey, refused(merchant.apiKey)]));
  await until(() => merchants.every((merchant) => refused(merchant.apiKey) > before.get(merchant.apiKey)!));
  linkUp = true;
  const processed = () => emulator.events().filter((record) => record.outcome === 'processed');
  await until(() => processed().length === FLEET * EVENTS);
  await Promise.all(outboxes.map((outbox) => outbox.close()));
  return { merchants, processed: processed() };
}

describe('a fleet whose link comes back', () => {
  it('with a reconnect window, each kiosk sends one request at a time once refused, and its probe is answered before anything else of it goes', async () => {
    const { merchants, processed } = await fleet(WINDOW_MS);

    for (const { apiKey, tenantId } of merchants) {
      const mine = arrivals.filter((arrival) => arrival.kiosk === apiKey);
      // Its first round went out together; once all of it was refused, the kiosk probes.
      const firstRound = mine.slice(0, EVENTS);
      expect(firstRound.every((arrival) => !arrival.up)).toBe(true);
      const offline = Math.max(...firstRound.map((arrival) => arrival.refusedAt!));
      const probe = mine.findIndex((arrival) => arrival.up);
      // From then to the probe's answer: one request at a time, none overtaken.
      const probing = mine.slice(EVENTS, probe + 1);
      expect(probing.length).toBeGreaterThan(1);
      expect(probing.every((arrival) => arrivals.indexOf(arrival) >= offline)).toBe(true);
      expect(probing.every((arrival) => arrival.alongside === 0 && !arrival.overtaken)).toBe(true);
      // After it, the rest of the backlog, each event processed once.
      expect(mine.slice(probe).filter((arrival) => arrival.up)).toHaveLength(EVENTS);
      expect(processed.filter((record) => record.tenantId === tenantId)).toHaveLength(EVENTS);
    }
  }, 60_000);

  it('without it (reconnectWindowMs: 0), refused kiosks keep several requests under way at once after their first round', async () => {
    const { merchants, processed } = await fleet(0);

    const overlapping = merchants.filter(({ apiKey }) =>
      arrivals
        .filter((arrival) => arrival.kiosk === apiKey)
        .slice(EVENTS)
        .some((arrival) => !arrival.up && arrival.alongside > 0),
    );
    expect(overlapping.length).toBeGreaterThan(0);
    expect(processed).toHaveLength(FLEET * EVENTS);
  }, 60_000);
});
