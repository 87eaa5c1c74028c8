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
import { type RealServer, startPgBouncer } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * The transactional outbox behind PgBouncer, in transaction mode (Supabase's, Neon's and
 * Heroku's poolers) and in session mode, with pg and postgres.js: three POS processes commit
 * sales through the pooler, each enqueueing its event in the sale's transaction (one in ten
 * rolled back), and two drainers drain through the pooler with `listen` on a direct connection,
 * as docs/outbox.md says. Every committed event is sent once, none rolled back is sent.
 */

const CHILD = fileURLToPath(new URL('./fixtures/pooler-child.mjs', import.meta.url));
const SALES = 100;
const CUSTOMERS = 20;

let work: string;
let bundle: string;
let emulator: Emulator;
let baseUrl: string;
let merchant: MerchantCredentials;

interface Child {
  child: ChildProcess;
  closed: Promise<unknown>;
  lines: () => string[];
  stderr: () => string;
}

function start(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD, bundle, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
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

async function until(what: string, child: Child, seen: (lines: string[]) => boolean): Promise<void> {
  while (!seen(child.lines())) {
    if (child.child.exitCode !== null || child.child.signalCode !== null) {
      throw new Error(`child exited before ${what}: ${child.stderr()}`);
    }
    await sleep(10);
  }
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'outbox-pooler-'));
  bundle = join(work, 'sdk-bundle.mjs');
  await bundleSdk(bundle, {
    'loyalty-partner-sdk/outbox': ['createOutbox'],
    'loyalty-partner-sdk/postgres': ['postgresStore'],
    'loyalty-partner-sdk': ['LoyaltyClient'],
  });
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
      phone: `+9665100${String(i).padStart(5, '0')}`,
    });
  }
  await setup.close();
});

afterAll(async () => {
  await emulator?.close();
  await rm(work, { recursive: true, force: true });
});

describeWithPostgres('the transactional outbox behind PgBouncer', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const bouncers: Partial<Record<'transaction' | 'session', RealServer>> = {};
  beforeAll(async () => {
    bouncers.transaction = await startPgBouncer(url, { mode: 'transaction', poolSize: 6 });
    // Session mode pins a server connection per client: room for every process's pool.
    bouncers.session = await startPgBouncer(url, { mode: 'session', poolSize: 40 });
  }, 60_000);
  afterAll(async () => {
    await bouncers.transaction?.stop();
    await bouncers.session?.stop();
    await pool.end();
  });

  const cases = (['transaction', 'session'] as const).flatMap((mode) =>
    (['pg', 'postgres.js'] as const).map((driver) => [mode, driver] as const),
  );
  it.each(cases)(
    'in %s mode with %s: every committed event sent once, none rolled back sent, listen on a direct connection',
    async (mode, driver) => {
      const schema = uniqueName(`pooler_${mode}`);
      await migrate(pool, { schema });
      await pool.query(
        `CREATE TABLE "${schema}".sales (invoice_id text PRIMARY KEY, event_id text NOT NULL UNIQUE, pos text NOT NULL)`,
      );
      const requestsBefore = emulator.events({ tenantId: merchant.tenantId }).length;
      const pooled = bouncers[mode]!.url;
      const common = (role: string, name: string) => [
        role,
        driver === 'pg' ? 'pg' : 'postgres',
        pooled,
        url,
        schema,
        baseUrl,
        merchant.apiKey,
        merchant.signingSecret,
        merchant.tenantId,
        name,
        String(SALES),
        String(CUSTOMERS),
        mode,
      ];
      const drainers = [1, 2].map((n) => start(common('drain', `drainer-${n}`)));
      for (const drainer of drainers) await until('READY', drainer, (lines) => lines.includes('READY'));
      const sellers = [1, 2, 3].map((n) => start(common('pos', `pos-${n}`)));
      for (const pos of sellers) await until('SOLD', pos, (lines) => lines.some((l) => l.startsWith('SOLD')));

      const pendingRows = async () =>
        (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state <> 'delivered'`))
          .rows[0].n;
      while ((await pendingRows()) > 0) await sleep(20);
      for (const child of [...sellers, ...drainers]) child.child.stdin!.write('stop\n');
      for (const child of [...sellers, ...drainers]) {
        await child.closed;
        expect({ code: child.child.exitCode, stderr: child.stderr() }).toEqual({ code: 0, stderr: '' });
        // No warning: postgres.js is given `prepare: false` behind the pooler, as the docs say.
        expect(child.lines().filter((line) => line.startsWith('WARN'))).toEqual([]);
      }

      const sales = (await pool.query<{ event_id: string }>(`SELECT event_id FROM "${schema}".sales`)).rows;
      const committed = new Set(sales.map((sale) => sale.event_id));
      const rolledBack = sellers.reduce(
        (sum, pos) =>
          sum +
          Number(
            pos
              .lines()
              .find((l) => l.startsWith('SOLD'))!
              .split(' ')[2],
          ),
        0,
      );
      const requests = emulator.events({ tenantId: merchant.tenantId }).slice(requestsBefore);
      expect(sales).toHaveLength(3 * SALES);
      expect(rolledBack).toBeGreaterThan(0);
      expect(requests.filter((request) => !committed.has(request.eventId!))).toEqual([]);
      const sent = new Map<string, number>();
      for (const request of requests) sent.set(request.eventId!, (sent.get(request.eventId!) ?? 0) + 1);
      expect([...committed].filter((eventId) => sent.get(eventId) !== 1)).toEqual([]);
    },
    180_000,
  );
});
