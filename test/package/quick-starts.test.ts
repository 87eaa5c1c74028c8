import { createServer } from 'node:net';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { createQuickStartProject, type QuickStartProject, quickStarts } from './quick-start-project.js';

// The README's three quick starts, copied into a fresh project with the packed package installed,
// run as written against the emulator and a real PostgreSQL.

const blocks = quickStarts();
let project: QuickStartProject;
let emulator: Emulator | undefined;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

beforeAll(() => {
  project = createQuickStartProject();
}, 120_000);
afterAll(() => project?.remove());
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

it('finds the four marked blocks in README.md', () => {
  expect(Object.keys(blocks)).toEqual(['pos', 'express', 'next', 'emulator']);
});

describeWithPostgres('the POS quick start', (url) => {
  const database = uniqueName('quick_start');
  const admin = new pg.Client({ connectionString: url });
  const databaseUrl = Object.assign(new URL(url), { pathname: `/${database}` }).href;

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
  });
  afterAll(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
  });

  it('commits the sale with its event, and the emulator credits it once', async () => {
    emulator = createEmulator();
    const { url: baseUrl } = await emulator.listen();
    const { tenantId, apiKey, signingSecret } = emulator.createMerchant({ autoConfirmBranches: true });
    const { stdout } = await project.run(project.write('pos', blocks.pos ?? ''), {
      DATABASE_URL: databaseUrl,
      LOYALTY_BASE_URL: baseUrl,
      LOYALTY_API_KEY: apiKey,
      LOYALTY_SIGNING_SECRET: signingSecret,
    });

    expect(stdout).toContain('delivered InvoiceEarned');
    expect(emulator.balance(tenantId, 'cust-1001').points).toBe(8);
    const processed = emulator
      .events()
      .filter((e) => e.outcome === 'processed')
      .map((e) => e.eventType);
    expect(processed).toEqual(['BranchSynced', 'CustomerSynced', 'InvoiceEarned']);
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    const sale = await db.query('SELECT total FROM sales WHERE invoice_id = $1', ['inv-5001']);
    const outbox = await db.query('SELECT DISTINCT state FROM loyalty.outbox');
    await db.end();
    expect(sale.rows).toEqual([{ total: '86.96' }]);
    expect(outbox.rows).toEqual([{ state: 'delivered' }]);
  }, 120_000);
});

it('the Express receiver answers 200 to every signed delivery of the emulator', async () => {
  const port = await freePort();
  emulator = createEmulator({ receiverUrl: `http://127.0.0.1:${port}/loyalty/webhooks` });
  const { url: baseUrl } = await emulator.listen();
  const { apiKey, signingSecret } = emulator.createMerchant({ autoConfirmBranches: true });
  const receiver = await project.start(
    project.write('express-receiver', blocks.express ?? ''),
    { PORT: String(port), LOYALTY_SIGNING_SECRET: signingSecret },
    /receiving on/,
  );
  try {
    const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
    await client.send('BranchSynced', samplePayload('BranchSynced')); // the first signed event starts delivery
    await client.close();
    await emulator.idle();

    const deliveries = emulator.deliveries();
    expect(deliveries.map((d) => d.eventType)).toContain('IntegrationStatusChanged');
    for (const delivery of deliveries) {
      expect(delivery.status).toBe('delivered');
      expect(delivery.attempts.map((a) => a.status)).toEqual([200]);
    }
    expect(receiver.output()).toContain('integration Enabled');
  } finally {
    receiver.stop();
  }
}, 120_000);

it('the Next.js route’s POST answers 200 to every signed delivery of the emulator', async () => {
  project.write('route', blocks.next ?? '');
  const driver = `
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';

let route;
const emulator = createEmulator({
  receiverUrl: 'http://next.test/api/loyalty/webhooks',
  fetch: (input, init) => route.POST(new Request(input, init)),
});
const { apiKey, signingSecret } = emulator.createMerchant({ autoConfirmBranches: true });
process.env.LOYALTY_SIGNING_SECRET = signingSecret; // read by the route module when it loads
route = await import('./route.js');
const client = new LoyaltyClient({ baseUrl: 'http://loyalty.test', apiKey, signingSecret, fetch: emulator.fetch });
await client.send('BranchSynced', samplePayload('BranchSynced'));
await emulator.idle();
console.log(JSON.stringify(emulator.deliveries().map((d) => [d.eventType, d.status, d.attempts.map((a) => a.status)])));
await client.close();
await emulator.close();
`;
  const { stdout } = await project.run(project.write('next-driver', driver), {});
  const deliveries = JSON.parse(stdout.trim().split('\n').at(-1) ?? '[]') as [string, string, number[]][];
  expect(deliveries.map(([type]) => type)).toContain('IntegrationStatusChanged');
  for (const [, status, answers] of deliveries) {
    expect(status).toBe('delivered');
    expect(answers).toEqual([200]);
  }
  expect(stdout).toContain('integration Enabled');
}, 60_000);

it('the emulator test passes under vitest in the fresh project', async () => {
  project.write('emulator.test', blocks.emulator ?? '', { strip: false });
  const { stdout } = await project.run('node_modules/vitest/vitest.mjs', {}, ['run']).catch((err) => {
    throw new Error(`vitest failed in the fresh project:\n${err.stdout}\n${err.stderr}`);
  });
  expect(stdout).toMatch(/1 passed/);
}, 120_000);
