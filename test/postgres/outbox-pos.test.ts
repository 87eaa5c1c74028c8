import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { migrate } from 'loyalty-partner-sdk/postgres';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleSdk } from '../support/bundle-sdk.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * The transactional outbox as three POS server processes use it: each commits its share of
 * sales, enqueueing the loyalty event in the sale's own transaction (one in ten rolled back on
 * purpose), and all three drain the shared table to the emulator while faults are injected and
 * one of them is SIGKILLed mid-way and restarted. Proved from the database's committed sales
 * and the emulator's own record of what arrived.
 */

const CHILD = fileURLToPath(new URL('./fixtures/pos-child.mjs', import.meta.url));
const POS = 3;
const SALES = 1_000;
const CUSTOMERS = 40;

let work: string;
let bundle: string;
let emulator: Emulator;
let baseUrl: string;
let merchant: MerchantCredentials;

/** Bundles the SDK from src/ into one ESM file the children import (the driver they import themselves). */
async function bundleForChild(outfile: string): Promise<void> {
  await bundleSdk(outfile, {
    'loyalty-partner-sdk/outbox': ['createOutbox'],
    'loyalty-partner-sdk/postgres': ['postgresStore'],
    'loyalty-partner-sdk': ['LoyaltyClient'],
  });
}

interface Pos {
  child: ChildProcess;
  closed: Promise<unknown>;
  lines: () => string[];
  stderr: () => string;
}

function startPos(driver: string, dbUrl: string, schema: string, pos: number): Pos {
  const args = [CHILD, bundle, driver, dbUrl, schema, baseUrl, merchant.apiKey, merchant.signingSecret];
  args.push(merchant.tenantId, `pos-${pos}`, String(SALES), String(CUSTOMERS));
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  return {
    child,
    closed: once(child, 'close'),
    lines: () => stdout.split('\n').filter(Boolean),
    stderr: () => stderr,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(what: string, pos: Pos, seen: (lines: string[]) => boolean): Promise<void> {
  while (!seen(pos.lines())) {
    if (pos.child.exitCode !== null || pos.child.signalCode !== null) {
      throw new Error(`POS exited before ${what}: ${pos.stderr()}`);
    }
    await sleep(10);
  }
}

const committedSoFar = (pos: Pos): number => {
  const progress = pos.lines().filter((line) => line.startsWith('P '));
  return Number(progress.at(-1)?.split(' ')[1] ?? 0);
};

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outbox-pos-'));
  bundle = join(work, 'sdk-bundle.mjs');
  await bundleForChild(bundle);
  emulator = createEmulator();
  ({ url: baseUrl } = await emulator.listen());
  merchant = emulator.createMerchant({ autoConfirmBranches: true });
  const setup = new LoyaltyClient({
    baseUrl,
    apiKey: merchant.apiKey,
    signingSecret: merchant.signingSecret,
  });
  await setup.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
  for (let i = 0; i < CUSTOMERS; i++) {
    await setup.send('CustomerSynced', {
      externalCustomerId: `cust-${i}`,
      phone: `+9665000${String(i).padStart(5, '0')}`,
    });
  }
  await setup.close();
});

afterAll(async () => {
  await emulator?.close();
  await rm(work, { recursive: true, force: true });
});

describeWithPostgres('the transactional outbox in three POS processes', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  afterAll(() => pool.end());

  // The driver name the child takes, by the name the test shows.
  const drivers: Record<string, string> = {
    pg: 'pg',
    'postgres.js': 'postgres',
    'pg in pipeline mode': 'pg-pipeline',
  };
  it.each(Object.keys(drivers))(
    'with %s: every committed sale credited once, no rolled-back sale sent, one customer’s events in commit order, across a SIGKILL',
    async (driver) => {
      const schema = uniqueName('pos');
      await migrate(pool, { schema });
      await pool.query(`CREATE TABLE "${schema}".customers (id text PRIMARY KEY, n integer NOT NULL)`);
      await pool.query(`CREATE TABLE "${schema}".sales (
        invoice_id text PRIMARY KEY, event_id text NOT NULL UNIQUE, pos text NOT NULL, customer text NOT NULL, n integer NOT NULL)`);
      const requestsBefore = emulator.events({ tenantId: merchant.tenantId }).length;
      emulator.injectFaults({
        kinds: ['CONCURRENCY_CONFLICT', 'reset', 'timeout-after-processing'],
        rate: 0.1,
        seed: driver.length,
        endpoints: ['events'],
      });
      const processes = [1, 2, 3].map((pos) => startPos(drivers[driver]!, url, schema, pos));
      for (const pos of processes) await until('READY', pos, (lines) => lines.includes('READY'));

      // POS 2 dies mid-way, with sales, enqueues and deliveries under way, and comes back.
      await until('300 sales', processes[1]!, () => committedSoFar(processes[1]!) >= 300);
      processes[1]!.child.kill('SIGKILL');
      await processes[1]!.closed;
      const rolledBackBeforeKill = Number(
        processes[1]!
          .lines()
          .filter((l) => l.startsWith('P '))
          .at(-1)
          ?.split(' ')[2],
      );
      processes[1] = startPos(drivers[driver]!, url, schema, 2);

      for (const pos of processes) await until('SOLD', pos, (lines) => lines.includes('SOLD'));
      const pendingRows = async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state <> 'delivered'`))
          .rows[0].n;
      while ((await pendingRows()) > 0) await sleep(20);
      for (const pos of processes) pos.child.stdin!.write('stop\n');
      for (const pos of processes) {
        await pos.closed;
        expect({ code: pos.child.exitCode, stderr: pos.stderr() }).toEqual({ code: 0, stderr: '' });
      }
      emulator.injectFaults({ kinds: ['reset'], rate: 0 });

      const sales = (
        await pool.query<{ invoice_id: string; event_id: string; customer: string; n: number }>(
          `SELECT invoice_id, event_id, customer, n FROM "${schema}".sales ORDER BY customer, n`,
        )
      ).rows;
      const requests = emulator.events({ tenantId: merchant.tenantId }).slice(requestsBefore);
      const committed = new Set(sales.map((sale) => sale.event_id));
      const rolledBack = processes.reduce(
        (sum, pos) =>
          sum +
          Number(
            pos
              .lines()
              .filter((l) => l.startsWith('P '))
              .at(-1)
              ?.split(' ')[2],
          ),
        rolledBackBeforeKill,
      );

      // Every committed sale, and nothing else, reached the service, each credited once.
      expect(sales).toHaveLength(POS * SALES);
      expect(rolledBack).toBeGreaterThan(POS * SALES * 0.05);
      expect(requests.filter((request) => !committed.has(request.eventId!))).toEqual([]);
      const credits = new Map<string, number>();
      for (const request of requests.filter((r) => r.outcome === 'processed')) {
        credits.set(request.eventId!, (credits.get(request.eventId!) ?? 0) + 1);
      }
      expect(sales.filter((sale) => credits.get(sale.event_id) !== 1)).toEqual([]);
      const invoices = new Map(
        emulator.merchant(merchant.tenantId).invoices.map((i) => [i.externalInvoiceId, i]),
      );
      expect(sales.filter((sale) => !invoices.get(sale.invoice_id)?.credited)).toEqual([]);
      expect(requests.some((request) => request.outcome === 'fault')).toBe(true);

      // One customer's events arrive in the order their sales committed: the copy the service
      // credits (the first one it processed) of sale n comes before that of sale n + 1. (A copy
      // the client abandoned after its timeout may still be processed later by a busy service,
      // as a replay: it credits nothing.)
      const credited = new Map<string, number>();
      requests.forEach((request, index) => {
        if (request.outcome === 'processed' && !credited.has(request.eventId!))
          credited.set(request.eventId!, index);
      });
      const outOfOrder: string[] = [];
      for (let i = 1; i < sales.length; i++) {
        const [before, after] = [sales[i - 1]!, sales[i]!];
        if (before.customer !== after.customer) continue;
        if (credited.get(before.event_id)! > credited.get(after.event_id)!) {
          outOfOrder.push(`${after.customer}: sale ${after.n} credited before sale ${before.n}`);
        }
      }
      expect(outOfOrder).toEqual([]);
    },
    400_000,
  );
});
