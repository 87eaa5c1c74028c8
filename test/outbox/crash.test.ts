import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linesSeen, startLineChild } from '../support/child-lines.js';
import { type OutboxWorld, outboxWorld } from '../support/outbox-fixtures.js';

/*
 * Crash safety end to end: a child process enqueues sales and delivers them to the emulator
 * (faults injected), and is SIGKILLed at random moments, 50 times, restarting on the same
 * directory each time. Every event whose enqueue resolved must finally be credited, and no
 * eventId or invoice may be credited twice.
 */

const CHILD = fileURLToPath(new URL('./fixtures/crash-child.mjs', import.meta.url));
const KILLS = 50;

let world: OutboxWorld;

function runChild(dir: string, run: number, mode: 'enqueue' | 'drain') {
  const { bundle, baseUrl, merchant } = world;
  const args = [bundle, dir, baseUrl, merchant.apiKey, merchant.signingSecret, merchant.tenantId];
  return startLineChild(CHILD, [...args, String(run), mode]);
}

beforeAll(async () => {
  const entries = {
    'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore'],
    'loyalty-partner-sdk': ['LoyaltyClient'],
  };
  world = await outboxWorld('outbox-crash', { customers: 2, entries });
});
afterAll(() => world?.close());

describe('outbox crash safety', () => {
  it(`delivers every durably enqueued event and credits each eventId once across ${KILLS} SIGKILLs`, async () => {
    const dir = join(world.work, 'kiosk');
    world.emulator.injectFaults({
      kinds: ['CONCURRENCY_CONFLICT', 'reset', 'timeout-after-processing'],
      rate: 0.1,
      seed: 7,
      endpoints: ['events'],
    });
    const reported = new Map<string, string>();
    for (let run = 0; run < KILLS; run++) {
      const kiosk = runChild(dir, run, 'enqueue');
      // Most kills land while the kiosk works (after its first enqueue resolved, however slow a
      // loaded machine makes its start); one in five while it is still starting up.
      if (run % 5 !== 0) await linesSeen(kiosk, (lines) => lines.some((line) => line.startsWith('E ')));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 250));
      kiosk.child.kill('SIGKILL');
      const [code, signal] = await kiosk.closed;
      expect({ code, signal, stderr: kiosk.stderr() }).toEqual({ code: null, signal: 'SIGKILL', stderr: '' });
      for (const line of kiosk.lines()) {
        const [kind, eventId, invoiceId] = line.split(' ');
        if (kind === 'E') reported.set(eventId!, invoiceId!);
      }
    }

    const drain = runChild(dir, KILLS, 'drain');
    const [code] = await drain.closed;
    expect({ code, stderr: drain.stderr() }).toEqual({ code: 0, stderr: '' });
    expect(drain.lines().at(-1)).toBe(
      `DONE ${JSON.stringify({ pending: 0, parked: 0, dead: 0, expired: 0 })}`,
    );

    const processed = world.emulator
      .events({ tenantId: world.merchant.tenantId, eventType: 'InvoiceEarned' })
      .filter((record) => record.outcome === 'processed');
    const creditsPerEvent = new Map<string, number>();
    for (const record of processed)
      creditsPerEvent.set(record.eventId!, (creditsPerEvent.get(record.eventId!) ?? 0) + 1);
    const invoices = world.emulator.merchant(world.merchant.tenantId).invoices;
    const creditedInvoices = new Set(
      invoices.filter((invoice) => invoice.credited).map((invoice) => invoice.externalInvoiceId),
    );

    expect(reported.size).toBeGreaterThanOrEqual((KILLS * 4) / 5);
    expect([...creditsPerEvent.values()].every((credits) => credits === 1)).toBe(true);
    expect([...reported.keys()].filter((eventId) => creditsPerEvent.get(eventId) !== 1)).toEqual([]);
    expect([...reported.values()].filter((invoiceId) => !creditedInvoices.has(invoiceId))).toEqual([]);
    const earns = world.emulator.ledger(world.merchant.tenantId).filter((entry) => entry.kind === 'earn');
    expect(earns).toHaveLength(creditedInvoices.size);
    expect(
      world.emulator
        .events({ tenantId: world.merchant.tenantId })
        .some((record) => record.outcome === 'replayed'),
    ).toBe(true);
    // No timeout of its own: fifty processes started one after another take minutes on a loaded
    // machine (120 s was once too short); the slow suites' 10 minutes apply.
  });
});
