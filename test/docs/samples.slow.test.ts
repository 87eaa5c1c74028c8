import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createNodeListener } from 'loyalty-partner-sdk/node';
import { createEmulator, DEFAULT_RULES, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/real-servers.js';
import { postgresUrl, redisUrl, uniqueName } from '../support/servers.js';
import { createGuideProject, type GuideProject, packageRoot, packSdk, type Ran } from './guide-project.js';
import { type GuideSample, readGuides } from './guide-samples.js';

// Every TypeScript sample of README.md and docs/, run as a reader runs it: per guide, a project
// made with `npm init -y` and the installs the guide names (the SDK from `npm pack`), each program
// saved under the name its marker gives and run with `npx tsx <file>` (or `npx vitest run`),
// against PostgreSQL and Redis from the global setup and the emulator for the service. What each
// program must show is below, by guide and file; a block marked as a fragment is not a program.
// Slow (npm installs, one tsx start per sample): `npm run test:slow`.

interface Context {
  readonly project: GuideProject;
  readonly sample: GuideSample;
  readonly file: string;
  /** What the guide tells the reader to export: the servers, the emulator's three variables, PORT. */
  readonly env: Record<string, string>;
  readonly emulator: Emulator;
  readonly tenantId: string;
  readonly port: number;
  readonly databaseUrl: string;
}

type Check = (ctx: Context) => Promise<void>;

/** `npx tsx <file>` to its end: it must exit 0; returns what it printed. */
async function runs(ctx: Context, extraEnv: Record<string, string> = {}): Promise<Ran> {
  const ran = await ctx.project.run(['tsx', ctx.file], { ...ctx.env, ...extraEnv });
  if (ran.code !== 0)
    throw new Error(`npx tsx ${ctx.file} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/**
 * A receiver program: started with `npx tsx <file>` until it listens on PORT, then given every
 * delivery the emulator makes once the merchant sends its first signed event. Each must be
 * answered 200 at the first attempt. Returns what the program printed.
 */
async function receives(ctx: Context, path = '/loyalty/webhooks'): Promise<string> {
  ctx.emulator.setReceiverUrl(ctx.tenantId, `http://127.0.0.1:${ctx.port}${path}`);
  const server = await ctx.project.start(['tsx', ctx.file], ctx.env, { port: ctx.port });
  try {
    const client = new LoyaltyClient({
      baseUrl: ctx.env.LOYALTY_BASE_URL ?? '',
      apiKey: ctx.env.LOYALTY_API_KEY ?? '',
      signingSecret: ctx.env.LOYALTY_SIGNING_SECRET ?? '',
    });
    await client.send('BranchSynced', samplePayload('BranchSynced')); // the first signed event
    await client.close();
    ctx.emulator.changeRule(ctx.tenantId, { ruleType: 'EarnRate', payload: EARN_RATE });
    await ctx.emulator.idle();
    const deliveries = ctx.emulator.deliveries({ tenantId: ctx.tenantId });
    expect(deliveries.map((d) => d.eventType)).toEqual(
      expect.arrayContaining(['IntegrationStatusChanged', 'LoyaltyRuleChanged']),
    );
    for (const delivery of deliveries)
      expect([delivery.eventType, delivery.attempts.map((a) => a.status)]).toEqual([
        delivery.eventType,
        [200],
      ]);
    return server.output();
  } finally {
    await server.stop();
  }
}

/** The rule change every receiver is sent: 2 points per 10 riyals instead of 1. */
const EARN_RATE = { ...DEFAULT_RULES.earnRate, pointCostPoints: 2 };

/**
 * Runs a driver saved beside the samples (`driver.mts`, with `npx tsx`): a program of the
 * reader's that uses a module the guide gives. It must exit 0; returns what it printed.
 */
async function driver(ctx: Context, source: string): Promise<string> {
  ctx.project.write('driver.mts', source);
  const ran = await ctx.project.run(['tsx', 'driver.mts'], ctx.env);
  if (ran.code !== 0)
    throw new Error(`the driver of ${ctx.file} exited ${ran.code}:\n${ran.stdout}\n${ran.stderr}`);
  return ran.stdout;
}

/** How one sample imports another: `./receiver.mjs` for `receiver.mts`, as TypeScript resolves it. */
const importPath = (file: string) => `./${file.replace(/\.mts$/, '.mjs')}`;

interface Drive {
  /** An expression of the imported module `sample`: the `(Request) => Promise<Response>` to deliver to. */
  readonly handler: string;
  /** Statements run after the import, with `sample`, `tenantId`, `apiKey` and `signingSecret` in scope. */
  readonly prepare?: string;
  /** Statements run once every delivery was answered. */
  readonly after?: string;
}

/**
 * A module a program imports (a receiver, a route): a driver imports it, hands it the emulator's
 * deliveries in process (a receiver through `loyalty-partner-sdk/fetch`), and prints each
 * delivery's answers: every one must be 200 at the first attempt. Returns what it printed.
 */
async function drives(ctx: Context, drive: Drive): Promise<{ output: string; ruleChanges: number }> {
  const output = await driver(
    ctx,
    `
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

let handle: (request: Request) => Promise<Response>;
const emulator = createEmulator({ receiverUrl: 'http://receiver.test/loyalty/webhooks', fetch: (input, init) => handle(new Request(input, init)) });
const { tenantId, apiKey, signingSecret } = emulator.createMerchant({ autoConfirmBranches: true });
process.env.LOYALTY_SIGNING_SECRET = signingSecret; // read by the sample when it loads
const sample = await import('${importPath(ctx.file)}');
${drive.prepare ?? ''}
handle = ${drive.handler};
const client = new LoyaltyClient({ baseUrl: 'http://loyalty.test', apiKey, signingSecret, fetch: emulator.fetch });
await client.send('BranchSynced', samplePayload('BranchSynced'));
emulator.changeRule(tenantId, { ruleType: 'EarnRate', payload: ${JSON.stringify(EARN_RATE)} });
await emulator.idle();
console.log('ANSWERS ' + JSON.stringify(emulator.deliveries().map((d) => [d.eventType, d.attempts.map((a) => a.status)])));
${drive.after ?? ''}
process.exit(0); // the sample's pools and clients stay open, as in an app
`,
  );
  const line = output.split('\n').find((l) => l.startsWith('ANSWERS '));
  if (!line) throw new Error(`the driver of ${ctx.file} printed no answers:\n${output}`);
  const answers = JSON.parse(line.slice('ANSWERS '.length)) as [string, number[]][];
  expect(answers.map(([type]) => type)).toEqual(
    expect.arrayContaining(['IntegrationStatusChanged', 'LoyaltyRuleChanged']),
  );
  for (const [type, statuses] of answers) expect([type, statuses]).toEqual([type, [200]]);
  // The emulator announces a rule change once per store of the merchant.
  return { output, ruleChanges: answers.filter(([type]) => type === 'LoyaltyRuleChanged').length };
}

const receiverOf = (name: string): Drive => ({ handler: `fetchHandler(sample.${name})` });

const query = async (ctx: Context, text: string): Promise<Record<string, unknown>[]> => {
  const db = new pg.Client({ connectionString: ctx.databaseUrl });
  await db.connect();
  try {
    return (await db.query(text)).rows;
  } finally {
    await db.end();
  }
};

const count = async (ctx: Context, table: string): Promise<number> =>
  Number((await query(ctx, `SELECT count(*) AS n FROM ${table}`))[0]?.n);

/** Waits, with a generous deadline, until `condition` holds (a handler run by another process). */
async function waitFor(what: string, condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`waited 60 s for ${what}`);
}

/** The partner events the emulator received, by type. */
const received = (ctx: Context) => ctx.emulator.events({ tenantId: ctx.tenantId }).map((e) => e.eventType);

/** The branch and the customer a sale refers to, synced first as a POS does. */
async function syncBranchAndCustomer(ctx: Context): Promise<void> {
  const client = new LoyaltyClient({
    baseUrl: ctx.env.LOYALTY_BASE_URL ?? '',
    apiKey: ctx.env.LOYALTY_API_KEY ?? '',
    signingSecret: ctx.env.LOYALTY_SIGNING_SECRET ?? '',
  });
  await client.send('BranchSynced', samplePayload('BranchSynced'));
  await client.send('CustomerSynced', samplePayload('CustomerSynced'));
  await client.close();
}

const vitestPasses: Check = async (ctx) => {
  const ran = await ctx.project.run(['vitest', 'run', ctx.file], ctx.env);
  expect(ran.stdout, ran.stderr).toMatch(/1 passed/);
};

const servesEveryDelivery: Check = async (ctx) => {
  await receives(ctx);
};

/** The rule changes the deferred guide's receiver stored, for its worker to handle. */
let deferredRuleChanges = -1;

/** What each program of each guide must do, by `guide#file`. */
const checks: Record<string, Check> = {
  'README.md#pos.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toContain('delivered InvoiceEarned');
    expect(ctx.emulator.balance(ctx.tenantId, 'cust-1001').points).toBe(8);
    expect(await query(ctx, "SELECT total FROM sales WHERE invoice_id = 'inv-5001'")).toEqual([
      { total: '86.96' },
    ]);
  },
  'README.md#express-receiver.mts': async (ctx) => {
    expect(await receives(ctx)).toContain('integration Enabled');
  },
  'README.md#app/api/loyalty/webhooks/route.ts': async (ctx) => {
    expect((await drives(ctx, { handler: 'sample.POST' })).output).toContain('integration Enabled');
  },
  'README.md#emulator.test.mts': vitestPasses,

  'docs/receiving-webhooks.md#receiver.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^401 application\/json \{"code":"INVALID_SIGNATURE"/m);
  },
  'docs/receiving-webhooks.md#node-receiver.mts': servesEveryDelivery,
  'docs/receiving-webhooks.md#express-receiver.mts': servesEveryDelivery,
  'docs/receiving-webhooks.md#express-json-receiver.mts': servesEveryDelivery,
  'docs/receiving-webhooks.md#fastify-receiver.mts': servesEveryDelivery,
  'docs/receiving-webhooks.md#koa-receiver.mts': servesEveryDelivery,
  'docs/receiving-webhooks.md#app/api/loyalty/webhooks/route.ts': async (ctx) => {
    await drives(ctx, { handler: 'sample.POST' });
  },
  'docs/receiving-webhooks.md#pages/api/loyalty/webhooks.ts': async (ctx) => {
    // Next.js calls the default export with Node's request and response: so does a server here.
    await drives(ctx, {
      prepare: `
const { createServer } = await import('node:http');
const pagesHandler = sample.default.default ?? sample.default;
const server = createServer((req, res) => pagesHandler(req, res));
await new Promise((listening) => server.listen(0, '127.0.0.1', listening));
const pagesUrl = 'http://127.0.0.1:' + server.address().port + '/api/loyalty/webhooks';`,
      handler: `async (request) => fetch(pagesUrl, { method: 'POST', headers: request.headers, body: await request.arrayBuffer() })`,
    });
  },
  'docs/receiving-webhooks.md#hono-app.mts': async (ctx) => {
    await drives(ctx, { handler: '(request) => sample.default.fetch(request)' });
  },
  'docs/receiving-webhooks.md#build.mts': async (ctx) => {
    // The reader's own program, which the guide's build.mts bundles.
    ctx.project.write(
      'kiosk.ts',
      `import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';

const client = new LoyaltyClient({
  baseUrl: process.env.LOYALTY_BASE_URL ?? '',
  apiKey: process.env.LOYALTY_API_KEY ?? '',
  signingSecret: process.env.LOYALTY_SIGNING_SECRET ?? '',
});
const outbox = createOutbox({ client, store: fileStore('kiosk-outbox') });
await outbox.start();
await outbox.enqueue('BranchSynced', { externalBranchId: 'branch-olaya', name: 'Olaya', isActive: true });
await outbox.flush();
await outbox.close();
await client.close();
console.log('kiosk delivered', outbox.stats().delivered ?? 'its events');
`,
    );
    await runs(ctx);
    const bundle = await ctx.project.run(['dist/kiosk.mjs'], ctx.env, process.execPath);
    expect(bundle.code, bundle.stderr).toBe(0);
    expect(received(ctx)).toEqual(['BranchSynced']);
  },
  'docs/receiving-webhooks.md#multi-tenant-receiver.mts': async (ctx) => {
    await drives(ctx, {
      ...receiverOf('receiver'),
      prepare: 'sample.secretsByTenant.set(tenantId, [signingSecret]);',
    });
  },
  'docs/receiving-webhooks.md#verify.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^authentic, signed at \d+ with secret #0$/m);
  },
  'docs/receiving-webhooks.md#verify-fetch.mts': async (ctx) => {
    const output = await driver(
      ctx,
      `import { signPayload } from 'loyalty-partner-sdk/signature';
const { POST } = await import('./verify-fetch.mjs');
const body = '{"eventType":"LoyaltyRuleChanged"}';
const post = (secret: string) =>
  POST(new Request('http://receiver.test/', { method: 'POST', body, headers: { 'x-signature': signPayload(body, secret) } }));
const [good, forged] = [await post('whsec_tenant_secret'), await post('whsec_other')];
console.log(good.status, forged.status, JSON.stringify(await forged.json()));
`,
    );
    expect(output.trim()).toBe('204 401 {"code":"INVALID_SIGNATURE"}');
  },
  'docs/receiving-webhooks.md#rotation.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toContain('{ timestamp: 1763630000, secretIndex: 0 }');
  },

  'docs/deferred-handling.md#receiver.mts': async (ctx) => {
    // The web process stores and answers; nothing runs the handlers yet.
    // The status change has no handler and no onUnhandled: parked at once.
    const { output, ruleChanges } = await drives(ctx, {
      ...receiverOf('receiver'),
      after: `console.log('STATS ' + JSON.stringify(await sample.receiver.stats()));`,
    });
    expect(output).toContain(`STATS {"pending":${ruleChanges},"handled":0,"dead":0,"parked":1}`);
    deferredRuleChanges = ruleChanges;
  },
  'docs/deferred-handling.md#worker.mts': async (ctx) => {
    const worker = await ctx.project.start(['tsx', ctx.file], ctx.env, { line: /worker running/ });
    try {
      await waitFor(
        'the worker to handle every stored LoyaltyRuleChanged',
        async () => (await count(ctx, 'rules_seen')) === deferredRuleChanges,
      );
    } finally {
      await worker.stop();
    }
  },
  'docs/deferred-handling.md#inbox-ops.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    // The rule changes were handled; the status change had no handler and no onUnhandled: parked.
    expect(stdout).toMatch(/pending: 0, handled: [1-9]\d*, dead: 0, parked: 1/);
    expect(stdout).toMatch(/parked: 1/);
  },
  'docs/deferred-handling.md#inbox-tenants.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    // inbox-ops.mts discarded the parked delivery: nothing is left to hold.
    expect(stdout).toContain('0 tenants hold pending, dead or parked deliveries');
  },

  'docs/receiver-stores.md#receiver.mts': async (ctx) => {
    const { ruleChanges } = await drives(ctx, receiverOf('receiver'));
    expect(await count(ctx, 'earn_rules_log')).toBe(ruleChanges);
  },
  'docs/receiver-stores.md#receiver-postgres-js.mts': async (ctx) => {
    const before = await count(ctx, 'earn_rules_log');
    const { ruleChanges } = await drives(ctx, receiverOf('receiver'));
    expect(await count(ctx, 'earn_rules_log')).toBe(before + ruleChanges);
  },
  'docs/receiver-stores.md#receiver-redis.mts': async (ctx) => {
    await drives(ctx, receiverOf('receiver'));
  },
  'docs/receiver-stores.md#inbox-node-redis.mts': async (ctx) => {
    await drives(ctx, {
      handler: 'fetchHandler(createReceiver({ secrets: signingSecret, inbox: sample.inbox, handlers: {} }))',
    });
  },
  'docs/receiver-stores.md#migrate-redis.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^\d+ keys moved$/m);
  },
  'docs/receiver-stores.md#orm-receivers.mts': async (ctx) => {
    const before = await count(ctx, 'earn_rules_log');
    const drizzle = await drives(ctx, receiverOf('withDrizzle'));
    const kysely = await drives(ctx, receiverOf('withKysely'));
    expect(await count(ctx, 'earn_rules_log')).toBe(before + drizzle.ruleChanges + kysely.ruleChanges);
  },
  'docs/receiver-stores.md#rules.mts': async (ctx) => {
    const { output } = await drives(ctx, {
      ...receiverOf('receiver'),
      after: `console.log('POINTS ' + (await sample.pointsFor(tenantId, tenantId, 100)));`,
    });
    expect(output).toMatch(/^POINTS 20$/m); // 100 riyals at the announced 2 points per 10
  },

  'docs/outbox.md#kiosk.mts': async (ctx) => {
    await runs(ctx);
    expect(received(ctx)).toContain('InvoiceEarned');
  },
  'docs/outbox.md#after-setup.mts': async (ctx) => {
    const output = await driver(
      ctx,
      `import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, memoryStore } from 'loyalty-partner-sdk/outbox';
import { afterMerchantFixedSetup } from './after-setup.mjs';

const client = new LoyaltyClient({
  baseUrl: process.env.LOYALTY_BASE_URL ?? '',
  apiKey: process.env.LOYALTY_API_KEY ?? '',
  signingSecret: process.env.LOYALTY_SIGNING_SECRET ?? '',
});
const outbox = createOutbox({ client, store: memoryStore() });
await outbox.start();
await outbox.enqueue('BranchSynced', { externalBranchId: 'branch-olaya', name: 'Olaya', isActive: true });
await outbox.flush();
await afterMerchantFixedSetup(outbox);
await outbox.close();
await client.close();
`,
    );
    expect(output).toMatch(/pending: 0, parked: 0, dead: 0, expired: 0, paused: \[\]/);
  },
  'docs/outbox.md#kiosk-encrypted.mts': async (ctx) => {
    await runs(ctx, { LOYALTY_OUTBOX_KEY: randomBytes(32).toString('base64') });
  },
  'docs/outbox.md#tenants.mts': async (ctx) => {
    await drives(ctx, {
      ...receiverOf('receiver'),
      prepare: 'sample.credentials.set(tenantId, { apiKey, signingSecret });',
    });
  },
  'docs/outbox.md#sales.mts': async (ctx) => {
    await syncBranchAndCustomer(ctx);
    await driver(
      ctx,
      `const { recordSale, outbox } = await import('./sales.mjs');
await recordSale('inv-7001', 'cust-1001', 86.96);
await outbox.flush();
process.exit(0); // the sample's pool stays open, as in a server
`,
    );
    expect(ctx.emulator.balance(ctx.tenantId, 'cust-1001').points).toBe(8);
    expect(await query(ctx, "SELECT total FROM sales WHERE invoice_id = 'inv-7001'")).toEqual([
      { total: '86.96' },
    ]);
  },
  'docs/outbox.md#sale-postgres-js.mts': async (ctx) => {
    await syncBranchAndCustomer(ctx);
    await runs(ctx);
    expect(ctx.emulator.balance(ctx.tenantId, 'cust-1001').points).toBe(8);
    expect(await query(ctx, "SELECT total FROM sales WHERE invoice_id = 'inv-5001'")).toEqual([
      { total: '86.96' },
    ]);
  },
  'docs/outbox.md#listen.mts': async (ctx) => {
    await runs(ctx);
    expect(received(ctx)).toEqual(['BranchSynced']);
  },
  'docs/outbox.md#orm-sales.mts': async (ctx) => {
    await driver(
      ctx,
      `const { saleWithDrizzle, saleWithDrizzleOnPostgresJs, saleWithKysely } = await import('./orm-sales.mjs');
await saleWithDrizzle('inv-8001', 'cust-1001', 10);
await saleWithDrizzleOnPostgresJs('inv-8002', 'cust-1001', 20);
await saleWithKysely('inv-8003', 'cust-1001', 30);
process.exit(0);
`,
    );
    const sales = await query(
      ctx,
      "SELECT invoice_id FROM sales WHERE invoice_id LIKE 'inv-800%' ORDER BY 1",
    );
    expect(sales.map((row) => row.invoice_id)).toEqual(['inv-8001', 'inv-8002', 'inv-8003']);
    const events = await query(
      ctx,
      "SELECT count(*) AS n FROM loyalty.outbox WHERE envelope->'payload'->>'externalInvoiceId' LIKE 'inv-800%'",
    );
    expect(events).toEqual([{ n: '3' }]);
  },

  'docs/emulator-and-cli.md#emulator.test.mts': vitestPasses,
  'docs/emulator-and-cli.md#in-process.mts': async (ctx) => {
    await runs(ctx);
  },
  'docs/emulator-and-cli.md#retry-ladder.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^failed \[/m);
  },
  'docs/emulator-and-cli.md#faults.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^[1-9]\d* faults, balance 40$/m);
  },
  'docs/emulator-and-cli.md#sign-test-header.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/rotating: 't=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}'/);
  },

  'docs/sending-and-retries.md#send.mts': async (ctx) => {
    await syncBranchAndCustomer(ctx);
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^credited \S+ 1 \S+$/m);
    expect(ctx.emulator.balance(ctx.tenantId, 'cust-1001').points).toBe(8);
  },
  'docs/sending-and-retries.md#lookup.mts': async (ctx) => {
    await syncBranchAndCustomer(ctx);
    const { stdout } = await runs(ctx);
    expect(stdout.trim()).not.toBe('');
  },
  'docs/sending-and-retries.md#hooks.mts': async (ctx) => {
    await runs(ctx);
  },

  'docs/events.md#envelope.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toMatch(/^\S+ Invoice inv-5001$/m);
    expect(stdout).toContain('payload.stampCardId: is required when earnType is Stamps');
  },

  'docs/observability.md#telemetry.mts': async (ctx) => {
    const { stdout } = await runs(ctx);
    expect(stdout).toContain('BranchSynced');
    expect(stdout).toContain('loyalty.');
  },

  'docs/test-your-receiver.md#check-receiver.mts': async (ctx) => {
    const receiver = createReceiver({ secrets: 'whsec_test_only', handlers: {} });
    const server = createServer(createNodeListener(receiver));
    await new Promise<void>((listening) => server.listen(ctx.port, '127.0.0.1', listening));
    try {
      const { stdout } = await runs(ctx, {
        RECEIVER_URL: `http://127.0.0.1:${ctx.port}/loyalty/webhooks`,
        LOYALTY_SIGNING_SECRET: 'whsec_test_only',
      });
      expect(stdout).toBe(''); // every case passed: nothing to fix
    } finally {
      server.close();
    }
  },

  'docs/troubleshooting.md#explain.mts': async (ctx) => {
    const output = await driver(
      ctx,
      `import { createEnvelope } from 'loyalty-partner-sdk';
import { explain } from './explain.mjs';
try {
  createEnvelope('InvoiceEarned', { externalInvoiceId: 'inv-1' } as never);
} catch (err) {
  console.log(explain(err));
}
console.log(explain(new Error('not ours')));
`,
    );
    expect(output).toMatch(/^INVALID_PAYLOAD: Invalid InvoiceEarned payload/m);
    expect(output).toMatch(/^Error: not ours$/m);
  },
};

const guides = readGuides(packageRoot).filter((guide) => guide.samples.length > 0);
const only = process.env.GUIDES?.split(',');

it('every TypeScript block of the README and the guides is marked as a program or a fragment', () => {
  expect(guides.flatMap((guide) => guide.unmarked)).toEqual([]);
});

it('every program of the guides has a check here, and every check a program', () => {
  const programs = guides.flatMap((g) => g.samples.filter((s) => s.file).map((s) => `${g.name}#${s.file}`));
  expect(Object.keys(checks).sort()).toEqual(programs.sort());
});

let tarball: { tarball: string; remove: () => void } | undefined;
let admin: pg.Client | undefined;
beforeAll(async () => {
  tarball = await packSdk();
  const url = postgresUrl();
  if (!url) throw new Error('the guides’ samples need PostgreSQL: apt-get install -y postgresql');
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
}, 120_000);
afterAll(async () => {
  tarball?.remove();
  await admin?.end();
});

for (const guide of guides) {
  const programs = guide.samples.filter((sample) => sample.file);
  if (programs.length === 0 || (only && !only.includes(guide.name))) continue;
  // One guide after the other (side by side, on a loaded 2-core machine, samples time out), and a
  // guide's samples in order: some import the ones before them, or handle what they stored.
  describe(guide.name, () => {
    let project: GuideProject;
    const database = uniqueName('guide');
    let databaseUrl = '';
    beforeAll(async () => {
      project = await createGuideProject(guide, tarball?.tarball ?? '');
      await admin?.query(`CREATE DATABASE ${database}`);
      databaseUrl = Object.assign(new URL(postgresUrl() ?? ''), { pathname: `/${database}` }).href;
    }, 600_000);
    afterAll(async () => {
      project?.remove();
      await admin?.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    });

    for (const sample of programs) {
      const file = sample.file as string;
      it(`${file} (line ${sample.line}) runs as written`, async () => {
        const check = checks[`${guide.name}#${file}`];
        if (!check) throw new Error(`no check for ${guide.name}#${file}: add one to this file`);
        project.write(file, sample.source);
        const port = await freePort();
        const emulator = createEmulator();
        try {
          const { url } = await emulator.listen();
          const merchant = emulator.createMerchant({ autoConfirmBranches: true });
          const env = {
            DATABASE_URL: databaseUrl,
            REDIS_URL: redisUrl() ?? '',
            LOYALTY_BASE_URL: url,
            LOYALTY_API_KEY: merchant.apiKey,
            LOYALTY_SIGNING_SECRET: merchant.signingSecret,
            PORT: String(port),
          };
          await check({
            project,
            sample,
            file,
            env,
            emulator,
            tenantId: merchant.tenantId,
            port,
            databaseUrl,
          });
        } finally {
          await emulator.close();
        }
      }, 300_000);
    }
  });
}
