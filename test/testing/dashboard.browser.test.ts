import { existsSync, mkdirSync } from 'node:fs';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

const CHROMIUM = '/usr/bin/chromium';
const ARTEFACTS = 'test-results';

describe('the dashboard page, in a real headless Chromium', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers.reverse()) await close();
  });

  it('shows the merchant, and its Pause button makes the next event answer INTEGRATION_PAUSED', async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (CI does)`);
    const emulator = createEmulator();
    closers.push(() => emulator.close());
    const { url } = await emulator.listen();
    const { tenantId, apiKey, signingSecret } = emulator.createMerchant({
      tenantId: 'cafe-olaya',
      autoConfirmBranches: true,
    });
    const client = new LoyaltyClient({ baseUrl: url, apiKey, signingSecret, retry: false });
    closers.push(() => client.close());
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    await client.send('InvoiceEarned', samplePayload('InvoiceEarned'));

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    closers.push(() => browser.close());
    const page = await browser.newPage();
    await page.goto(`${url}/__emulator/`);
    const merchant = page.locator(`section.merchant[data-tenant="${tenantId}"]`);
    await expect.poll(() => merchant.locator('.connection').textContent()).toBe('Active');
    expect(await merchant.textContent()).toContain('cust-1001');
    expect(await page.locator('#events').textContent()).toContain('InvoiceEarned');

    await merchant.getByRole('button', { name: 'Pause' }).click();
    await expect.poll(() => page.locator('#message').textContent()).toBe('Pause: done');
    await expect.poll(() => merchant.locator('.connection').textContent()).toBe('Active, paused');
    expect(emulator.merchant(tenantId).paused).toBe(true);

    await expect(client.send('BranchSynced', samplePayload('BranchSynced'))).rejects.toMatchObject({
      code: 'INTEGRATION_PAUSED',
    });
    await expect.poll(() => page.locator('#events tr').first().textContent()).toContain('INTEGRATION_PAUSED');
    mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: `${ARTEFACTS}/dashboard-paused.png`, fullPage: true });
    expect(existsSync(`${ARTEFACTS}/dashboard-paused.png`)).toBe(true);
  }, 60_000);
});
