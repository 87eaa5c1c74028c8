import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { copyFile, mkdir } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { migrate, postgresInbox } from 'loyalty-partner-sdk/postgres';
import { createEmulator } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../../src/cli/run-cli.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { deadSales } from './ops-fixtures.js';

const CHROMIUM = '/usr/bin/chromium';
const ARTEFACTS = 'test-results';
const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';

/**
 * A receiver's deferred inbox in the same schema: cafe-dash has one delivery pending for five
 * minutes; cafe-olaya one dead (its handler kept failing) and one parked.
 */
async function inboxOfTwoTenants(pool: pg.Pool, schema: string) {
  const inbox = postgresInbox(pool, { schema });
  const delivery = (tenantId: string, receivedAt = Date.now()) => ({
    eventId: randomUUID(),
    eventType: 'LoyaltyRuleChanged',
    tenantId,
    rawBody: '{}',
    correlationId: randomUUID(),
    signatureTimestamp: Math.floor(receivedAt / 1000),
    secretIndex: 0,
    receivedAt,
  });
  await inbox.store(delivery('cafe-olaya'), 'pending');
  const [claim] = await inbox.claimDue('a-receiver', 10);
  await inbox.markFailed(claim!, { error: 'Error: the rules table is locked' });
  await inbox.store(delivery('cafe-olaya'), 'parked', 'schemaVersion 2 is not supported');
  await inbox.store(delivery('cafe-dash', Date.now() - 300_000), 'pending');
}

/** `loyalty-partner dashboard ...` in this process, on a free port, until the test stops it. */
async function dashboard(args: string[]) {
  const stop = new AbortController();
  const stdout = new PassThrough();
  let out = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  const exited = runCli(['dashboard', '--port', '0', ...args], {
    stdout,
    stderr: new PassThrough(),
    stdin: Readable.from([]),
    env: {},
    shutdown: stop.signal,
  });
  while (!/dashboard on (\S+)/.test(out)) await new Promise((resolve) => setTimeout(resolve, 20));
  const url = /dashboard on (\S+)/.exec(out)![1]!;
  const halt = () => {
    stop.abort();
    return exited;
  };
  return { url, stop: halt, banner: () => out };
}

/** Issue 33, must show 3: the page in headless Chromium, read-only, then with actions. */
describeWithPostgres('loyalty-partner dashboard, in a real headless Chromium', (pgUrl) => {
  const schema = uniqueName('ops_dash');
  const pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
  const emulator = createEmulator();
  const flags = ['--postgres', pgUrl, '--schema', schema, '--actor', 'layla'];
  let world: Awaited<ReturnType<typeof deadSales>>;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (CI does)`);
    await migrate(pool, { schema });
    const { url } = await emulator.listen();
    world = await deadSales(emulator, url, pool, schema, 3, 'cafe-dash', HOSTILE);
    await inboxOfTwoTenants(pool, schema);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--no-first-run',
        '--disable-background-networking',
      ],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await world?.close();
    await emulator.close();
    await pool.end();
  });

  it('shows the dead events by eventId with their errors, the inbox per tenant and state, a hostile payload as text, and refuses actions read-only', async () => {
    const server = await dashboard(flags);
    try {
      expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(server.banner()).toContain('read-only');
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.goto(server.url);
      const dead = page.locator('#outbox-attention');
      await expect.poll(() => dead.textContent()).toContain(world.eventIds[0]);
      const text = (await dead.textContent()) ?? '';
      for (const id of world.eventIds) expect(text).toContain(id);
      expect(text).toContain('STAMP_CARD_NOT_FOUND');
      expect(text).toContain(HOSTILE);
      expect(await dead.locator('img, script').count()).toBe(0);
      expect(await page.evaluate(() => (window as { __pwned?: number }).__pwned)).toBeUndefined();
      expect(await page.locator('#outbox-tenants').textContent()).toMatch(/cafe-dash\s*0\s*0\s*3\s*0/);
      const inboxRow = (tenant: string) =>
        page.locator('#inbox-tenants tr', { hasText: tenant }).locator('td').allTextContents();
      // Tenant, pending, dead, parked, handled (all tenants only), oldest pending.
      expect(await inboxRow('cafe-dash')).toEqual(['cafe-dash', '1', '0', '0', '', '5m']);
      expect(await inboxRow('cafe-olaya')).toEqual(['cafe-olaya', '0', '1', '1', '', '']);
      expect(await inboxRow('all tenants')).toEqual(['all tenants', '1', '1', '1', '0', '5m']);
      expect(await page.locator('#inbox-attention').textContent()).toContain('the rules table is locked');
      expect(await dead.getByRole('button').count()).toBe(0);
      await mkdir(ARTEFACTS, { recursive: true });
      await page.screenshot({ path: `${ARTEFACTS}/dashboard-read-only.png`, fullPage: true });

      const status = await page.evaluate(async (eventId) => {
        const response = await fetch('api/actions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'outbox.discard', eventId }),
        });
        return [response.status, (await response.json()).code];
      }, world.eventIds[0]);
      expect(status).toEqual([403, 'READ_ONLY']);
      await page.close();
    } finally {
      await server.stop();
    }
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state = 'dead'`,
    );
    expect(rows[0].n).toBe(3);
  });

  it('with --allow-actions, redelivers after a confirmation, audits it on the page, and refuses another origin', async () => {
    const server = await dashboard([...flags, '--allow-actions']);
    const [chosen] = world.eventIds as [string];
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const asked: string[] = [];
      page.on('dialog', (dialog) => {
        asked.push(dialog.message());
        void dialog.accept();
      });
      await page.goto(server.url);
      const row = page.locator('#outbox-attention tr', { hasText: chosen });
      await row.getByRole('button', { name: 'redeliver' }).click();
      await expect
        .poll(() => page.locator('#message').textContent())
        .toContain(`outbox redeliver ${chosen}: back in its tenant's queue`);
      expect(asked).toEqual([`outbox redeliver ${chosen}?`]);
      await expect.poll(() => page.locator('#audit').textContent()).toContain(chosen);
      expect(await page.locator('#audit').textContent()).toContain('layla');
      await world.drain();
      expect(emulator.events({ eventId: chosen })).toHaveLength(2);
      await page.reload();
      await expect.poll(() => page.locator('#audit').textContent()).toContain('outbox.redeliver');
      await page.screenshot({ path: `${ARTEFACTS}/dashboard.png`, fullPage: true });
      if (process.env.UPDATE_DOCS_IMAGES)
        await copyFile(`${ARTEFACTS}/dashboard.png`, 'docs/images/dashboard.png');
      await page.close();

      const forged = await fetch(`${server.url}api/actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: 'http://evil.example' },
        body: JSON.stringify({ action: 'outbox.discard', eventId: chosen }),
      });
      expect(forged.status).toBe(403);
      const plain = await fetch(`${server.url}api/actions`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: JSON.stringify({ action: 'outbox.discard', eventId: chosen }),
      });
      expect(plain.status).toBe(415);
    } finally {
      await server.stop();
    }
  });
});
