import type { ServerResponse } from 'node:http';
import type { LoyaltyClient, SendResult } from 'loyalty-partner-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The emulator's own seeded generator, so every run injects the same faults.
import { seeded } from '../../src/testing/faults.js';
import { clientFor, invoice, SECRET } from './support/client-fixture.js';
import {
  fail,
  type Received,
  type ScriptedServer,
  startScriptedServer,
  verifyByHand,
} from './support/scripted-server.js';

const EVENTS = 2_000;
const CONCURRENCY = 32;
const FAILURE_RATE = 0.3;
const SEED = 0x5eed_2026;

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** Reproducible UUIDv7 event ids (the fault of an attempt is keyed on its eventId). */
function eventIds(count: number): string[] {
  const random = seeded(SEED);
  const hex = (digits: number) =>
    Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  return Array.from({ length: count }, (_, i) => {
    const ms = (1_790_000_000_000 + i).toString(16).padStart(12, '0');
    return `${ms.slice(0, 8)}-${ms.slice(8)}-7${hex(3)}-${'89ab'[Math.floor(random() * 4)]}${hex(3)}-${hex(12)}`;
  });
}

type Fault = (res: ServerResponse, req: Received, process: () => void) => void;
const FAULTS: Fault[] = [
  (res) => fail(res, 503, 'INTEGRATION_PAUSED'),
  (res) => fail(res, 503, 'CONCURRENCY_CONFLICT'),
  (res) => fail(res, 503, 'SUBSCRIPTION_LAPSED'),
  (res) => fail(res, 503, 'EVENT_HANDLER_NOT_REGISTERED'),
  (res) => fail(res, 429, 'TOO_MANY_REQUESTS', { 'retry-after': '0' }),
  (res) => {
    res.writeHead(500, { 'content-type': 'text/plain' });
    res.end('internal error');
  },
  (_res, req) => req.socket.destroy(), // reset before the service did anything
  (_res, req, process) => {
    process(); // credited, then the answer is lost: the retry must get the replay
    req.socket.destroy();
  },
  () => undefined, // no answer at all: the client times out
  (_res, _req, process) => process(), // credited, then no answer
];

/** The service's dedup, as the contract describes it: the 200 of an eventId is cached and replayed. */
class DedupService {
  readonly credits = new Map<string, number>();
  readonly firstBody = new Map<string, Buffer>();
  readonly attempts = new Map<string, number>();
  readonly invoices = new Map<string, string>();
  badSignatures = 0;
  changedBodies = 0;
  faults = 0;

  handle = (req: Received, res: ServerResponse): void => {
    if (verifyByHand(req.body, req.headers['x-signature'], SECRET) === undefined) {
      this.badSignatures += 1;
      fail(res, 401, 'INVALID_SIGNATURE');
      return;
    }
    const envelope = JSON.parse(req.body.toString()) as {
      eventId: string;
      payload: { externalInvoiceId: string };
    };
    const { eventId } = envelope;
    const first = this.firstBody.get(eventId);
    if (!first) this.firstBody.set(eventId, req.body);
    else if (!first.equals(req.body)) this.changedBodies += 1;
    const attempt = (this.attempts.get(eventId) ?? 0) + 1;
    this.attempts.set(eventId, attempt);

    const process = () => {
      if (this.credits.has(eventId)) return; // cached: the handler never runs twice
      const owner = this.invoices.get(envelope.payload.externalInvoiceId);
      if (owner && owner !== eventId) throw new Error('invoice credited under two eventIds');
      this.invoices.set(envelope.payload.externalInvoiceId, eventId);
      this.credits.set(eventId, (this.credits.get(eventId) ?? 0) + 1);
    };
    const roll = seeded(SEED ^ fnv1a(`${eventId}#${attempt}`));
    if (roll() < FAILURE_RATE) {
      this.faults += 1;
      FAULTS[Math.floor(roll() * FAULTS.length)]!(res, req, process);
      return;
    }
    process();
    res.writeHead(200, { 'content-type': 'application/json', 'x-correlation-id': `corr-${eventId}` });
    res.end(JSON.stringify({ eventId, credited: true }));
  };
}

let server: ScriptedServer;
let client: LoyaltyClient;
const service = new DedupService();

beforeAll(async () => {
  server = await startScriptedServer((req, res) => service.handle(req, res));
});
afterAll(async () => {
  await client?.close();
  await server.close();
});

describe(`${EVENTS} events at concurrency ${CONCURRENCY} against a service failing ${FAILURE_RATE * 100}% of requests`, () => {
  it('gets every event accepted and credited exactly once, with the same bytes and a valid signature on every attempt', async () => {
    client = clientFor(server, {
      timeoutMs: 1_000,
      // No retry budget: at a 30% failure rate a retry costs about what a success refills, so on a
      // loaded machine (answers late, attempts timed out) the default budget can run dry and end a
      // call early. The budget is tested on its own; here every fault must be retried to the end.
      retry: { maxAttempts: 15, baseDelayMs: 1, maxDelayMs: 8, budget: false },
    });
    const ids = eventIds(EVENTS);
    const results: SendResult[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        results[i] = await client.send('InvoiceEarned', invoice(`inv-${i}`), { eventId: ids[i] });
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));

    expect(results.map((r) => r.eventId)).toEqual(ids);
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(service.faults).toBeGreaterThan(EVENTS * FAILURE_RATE * 0.8);
    expect(service.credits.size).toBe(EVENTS);
    expect([...service.credits.values()].every((count) => count === 1)).toBe(true);
    expect(service.changedBodies).toBe(0);
    expect(service.badSignatures).toBe(0);
    expect(results.filter((r) => r.attempts > 1).length).toBeGreaterThan(EVENTS * FAILURE_RATE * 0.8);
    // Seconds on a quiet machine; a loaded one stretches each of its hundreds of waits.
  }, 300_000);
});
