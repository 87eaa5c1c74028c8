import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type BinProcess, startBin } from './bin.js';

const CREDENTIALS =
  /export LOYALTY_BASE_URL=(\S+)\n\s+export LOYALTY_API_KEY=(\S+)\n\s+export LOYALTY_SIGNING_SECRET=(\S+)\n/;

describe('loyalty-partner emulate (the built bin)', () => {
  const running: BinProcess[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const bin of running.splice(0)) {
      if (bin.child.exitCode === null) bin.child.kill('SIGKILL');
      await bin.exited;
    }
    for (const close of closers.splice(0)) await close();
  });

  const start = (args: string[] = []) => {
    const bin = startBin(['emulate', '--port', '0', ...args]);
    running.push(bin);
    return bin;
  };

  it('prints its URL and test credentials, logs an event a client sends, and stops cleanly on SIGTERM', async () => {
    const bin = start(['--tenant-id', 'cafe-olaya']);
    const [, baseUrl = '', apiKey = '', signingSecret = ''] = await bin.waitFor(CREDENTIALS);
    expect(bin.stdout()).toMatch(
      /^Loyalty emulator \(a local test double of the Loyalty service\) on http:\/\/127\.0\.0\.1:\d+\n/,
    );
    expect(apiKey).toMatch(/^lk_test_/);
    expect(signingSecret).toMatch(/^whsec_/);

    const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
    closers.push(() => client.close());
    const { eventId, status } = await client.send('BranchSynced', samplePayload('BranchSynced'));
    expect(status).toBe(200);
    const [line] = await bin.waitFor(new RegExp(`POST /api/partner/v1/events 200 processed .*${eventId}.*`));
    expect(line).toContain('BranchSynced');
    expect(line).toContain('tenant cafe-olaya');

    bin.child.kill('SIGTERM');
    const { code, signal, stdout } = await bin.exited;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(stdout).toMatch(/SIGTERM: stopping\nstopped\n$/);
  });

  it('delivers webhooks to --receiver-url and logs each attempt, and stops on SIGINT', async () => {
    const received: string[] = [];
    const receiver: Server = createServer((req, res) => {
      req.resume().on('end', () => {
        received.push(String(req.headers['x-tenantid']));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => receiver.close(resolve)));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const bin = start(['--receiver-url', receiverUrl]);
    const [, baseUrl = '', apiKey = '', signingSecret = ''] = await bin.waitFor(CREDENTIALS);
    await bin.waitFor(/webhook IntegrationStatusChanged queued until the first signed event/);

    const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
    closers.push(() => client.close());
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await bin.waitFor(/webhook IntegrationStatusChanged -> \S+\/hooks attempt 1: 200 delivered/);
    expect(received[0]).toBe('merchant-1');

    bin.child.kill('SIGINT');
    expect((await bin.exited).code).toBe(0);
  });

  it('runs the README first example: with --auto-confirm-branches the first earn is credited', async () => {
    const bin = start(['--auto-confirm-branches']);
    const [, baseUrl = '', apiKey = '', signingSecret = ''] = await bin.waitFor(CREDENTIALS);
    const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
    closers.push(() => client.close());
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    const earned = await client.send('InvoiceEarned', samplePayload('InvoiceEarned'));
    expect(earned.body).toMatchObject({ status: 'Processed', result: { pointsEarned: 8 } });
  });

  it('keeps its credentials across a restart: --write-config once, then --config', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emulate-'));
    const config = join(dir, 'emulator.json');
    const first = start(['--write-config', config, '--branch', 'branch-olaya', '--ship', 'InvoiceRefunded']);
    const [, , apiKey = '', signingSecret = ''] = await first.waitFor(CREDENTIALS);
    await first.waitFor(/Config written to /);
    first.child.kill('SIGTERM');
    await first.exited;
    expect(JSON.parse(readFileSync(config, 'utf8'))).toMatchObject({
      ship: ['InvoiceRefunded'],
      merchants: [
        {
          tenantId: 'merchant-1',
          apiKey,
          signingSecret,
          branches: [{ externalBranchId: 'branch-olaya', confirmed: true }],
        },
      ],
    });
    const second = start(['--config', config]);
    const [, baseUrl = '', again = '', secretAgain = ''] = await second.waitFor(CREDENTIALS);
    expect([again, secretAgain]).toEqual([apiKey, signingSecret]);
    expect(second.stdout()).toContain('Branches: branch-olaya (confirmed)');
    const client = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
    closers.push(() => client.close());
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    expect((await client.send('InvoiceEarned', samplePayload('InvoiceEarned'))).status).toBe(200);
  });

  it('refuses a config file it cannot use, naming the field, exit 2', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'emulate-'));
    const config = join(dir, 'bad.json');
    writeFileSync(config, JSON.stringify({ merchants: [{ apiKey: 'not-a-key' }] }));
    const bad = await startBin(['emulate', '--port', '0', '--config', config]).exited;
    expect(bad).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('apiKey must start with lk_test_'),
    });
    writeFileSync(config, JSON.stringify({ prot: 1 }));
    const typo = await startBin(['emulate', '--port', '0', '--config', config]).exited;
    expect(typo).toMatchObject({ code: 2, stderr: expect.stringContaining('has unknown field prot') });
  });

  it('exits 2 with one line when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise((resolve) => taken.close(resolve)));
    const { port } = taken.address() as AddressInfo;
    const bin = startBin(['emulate', '--port', String(port)]);
    running.push(bin);
    const { code, stderr } = await bin.exited;
    expect({ code, stderr }).toEqual({
      code: 2,
      stderr: `error: port ${port} is in use: pass --port 0 for a free one\n`,
    });
  });
});
