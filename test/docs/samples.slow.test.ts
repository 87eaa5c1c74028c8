import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
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
    ctx.emulator.changeRule(ctx.tenantId, { ruleType: 'EarnRate', payload: null });
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

/**
 * A module a program imports (a receiver, a route): a driver saved beside it imports it, hands
 * it the emulator's deliveries in process (through `loyalty-partner-sdk/fetch`), and prints each
 * delivery's answers. `handler` turns the imported module into a `(Request) => Promise<Response>`.
 */
async function drives(
  ctx: Context,
  handler: string,
): Promise<{ answers: [string, number[]][]; output: string }> {
  const driver = `
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { fetchHandler } from 'loyalty-partner-sdk/fetch';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';

let handle: (request: Request) => Promise<Response>;
const emulator = createEmulator({ receiverUrl: 'http://receiver.test/hook', fetch: (input, init) => handle(new Request(input, init)) });
const { tenantId, apiKey, signingSecret } = emulator.createMerchant({ autoConfirmBranches: true });
process.env.LOYALTY_SIGNING_SECRET = signingSecret; // read by the sample when it loads
const sample = await import('./${ctx.file}');
handle = ${handler};
const client = new LoyaltyClient({ baseUrl: 'http://loyalty.test', apiKey, signingSecret, fetch: emulator.fetch });
await client.send('BranchSynced', samplePayload('BranchSynced'));
emulator.changeRule(tenantId, { ruleType: 'EarnRate', payload: null });
await emulator.idle();
console.log('ANSWERS ' + JSON.stringify(emulator.deliveries().map((d) => [d.eventType, d.attempts.map((a) => a.status)])));
process.exit(0); // the sample's pools and clients stay open, as in an app
`;
  ctx.project.write('driver.mts', driver);
  const ran = await ctx.project.run(['tsx', 'driver.mts'], ctx.env);
  const line = ran.stdout.split('\n').find((l) => l.startsWith('ANSWERS '));
  if (ran.code !== 0 || !line)
    throw new Error(`the driver of ${ctx.file} failed:\n${ran.stdout}\n${ran.stderr}`);
  const answers = JSON.parse(line.slice('ANSWERS '.length)) as [string, number[]][];
  expect(answers.map(([type]) => type)).toEqual(
    expect.arrayContaining(['IntegrationStatusChanged', 'LoyaltyRuleChanged']),
  );
  for (const [type, statuses] of answers) expect([type, statuses]).toEqual([type, [200]]);
  return { answers, output: ran.stdout };
}

const receiverOf = (name: string) => `fetchHandler(sample.${name})`;

const query = async (ctx: Context, text: string) => {
  const db = new pg.Client({ connectionString: ctx.databaseUrl });
  await db.connect();
  try {
    return (await db.query(text)).rows;
  } finally {
    await db.end();
  }
};

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
    const { output } = await drives(ctx, 'sample.POST');
    expect(output).toContain('integration Enabled');
  },
  'README.md#emulator.test.mts': async (ctx) => {
    const ran = await ctx.project.run(['vitest', 'run', ctx.file], ctx.env);
    expect(ran.stdout).toMatch(/1 passed/);
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
