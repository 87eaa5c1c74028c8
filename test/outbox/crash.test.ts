import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleSdk } from '../support/bundle-sdk.js';

/*
 * Crash safety end to end: a child process enqueues sales and delivers them to the emulator
 * (faults injected), and is SIGKILLed at random moments, 50 times, restarting on the same
 * directory each time. Every event whose enqueue resolved must finally be credited, and no
 * eventId or invoice may be credited twice.
 */

const CHILD = fileURLToPath(new URL('./fixtures/crash-child.mjs', import.meta.url));
const KILLS = 50;

let work: string;
let bundle: string;
let emulator: Emulator;
let url: string;
let merchant: MerchantCredentials;

/** Bundles the outbox and the Node client from src/ into one ESM file the child can import. */
async function bundleForChild(outfile: string): Promise<void> {
  await bundleSdk(outfile, {
    'loyalty-partner-sdk/outbox': ['createOutbox', 'fileStore'],
    'loyalty-partner-sdk': ['LoyaltyClient'],
  });
}

function runChild(dir: string, run: number, mode: 'enqueue' | 'drain') {
  const args = [
    CHILD,
    bundle,
    dir,
    url,
    merchant.apiKey,
    merchant.signingSecret,
    merchant.tenantId,
    String(run),
    mode,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, closed, lines: () => stdout.split('\n').filter(Boolean), stderr: () => stderr };
}

async function lineSeen(child: ChildProcess, lines: () => string[], prefix: string): Promise<void> {
  while (
    !lines().some((line) => line.startsWith(prefix)) &&
    child.exitCode === null &&
    child.signalCode === null
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outbox-crash-'));
  bundle = join(work, 'outbox-bundle.mjs');
  await bundleForChild(bundle);
  emulator = createEmulator();
  ({ url } = await emulator.listen());
  merchant = emulator.createMerchant({ autoConfirmBranches: true });
  const setup = new LoyaltyClient({
    baseUrl: url,
    apiKey: merchant.apiKey,
    signingSecret: merchant.signingSecret,
  });
  await setup.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
  await setup.send('CustomerSynced', { externalCustomerId: 'cust-1', phone: '+966500000001' });
  await setup.close();
});

afterAll(async () => {
  await emulator?.close();
  await rm(work, { recursive: true, force: true });
});

describe('outbox crash safety', () => {
  it(`delivers every durably enqueued event and credits each eventId once across ${KILLS} SIGKILLs`, async () => {
    const dir = join(work, 'kiosk');
    emulator.injectFaults({
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
      if (run % 5 !== 0) await lineSeen(kiosk.child, kiosk.lines, 'E ');
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

    const processed = emulator
      .events({ tenantId: merchant.tenantId, eventType: 'InvoiceEarned' })
      .filter((record) => record.outcome === 'processed');
    const creditsPerEvent = new Map<string, number>();
    for (const record of processed)
      creditsPerEvent.set(record.eventId!, (creditsPerEvent.get(record.eventId!) ?? 0) + 1);
    const invoices = emulator.merchant(merchant.tenantId).invoices;
    const creditedInvoices = new Set(
      invoices.filter((invoice) => invoice.credited).map((invoice) => invoice.externalInvoiceId),
    );

    expect(reported.size).toBeGreaterThanOrEqual((KILLS * 4) / 5);
    expect([...creditsPerEvent.values()].every((credits) => credits === 1)).toBe(true);
    expect([...reported.keys()].filter((eventId) => creditsPerEvent.get(eventId) !== 1)).toEqual([]);
    expect([...reported.values()].filter((invoiceId) => !creditedInvoices.has(invoiceId))).toEqual([]);
    const earns = emulator.ledger(merchant.tenantId).filter((entry) => entry.kind === 'earn');
    expect(earns).toHaveLength(creditedInvoices.size);
    expect(
      emulator.events({ tenantId: merchant.tenantId }).some((record) => record.outcome === 'replayed'),
    ).toBe(true);
    // No timeout of its own: fifty processes started one after another take minutes on a loaded
    // machine (120 s was once too short); the slow suites' 10 minutes apply.
  });
});
