import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './run.js';

const emulator = createEmulator();
let url: string;
beforeAll(async () => {
  ({ url } = await emulator.listen());
});
afterAll(() => emulator.close());

function merchant(tenantId: string) {
  const { apiKey, signingSecret } = emulator.createMerchant({ tenantId });
  const client = new LoyaltyClient({ baseUrl: url, apiKey, signingSecret, retry: false });
  return { client, control: (...args: string[]) => cli([...args, '--url', url, '--tenant-id', tenantId]) };
}

describe('the merchant side from the command line, against a running emulator', () => {
  it('pauses and resumes: the next event is refused with INTEGRATION_PAUSED, then accepted', async () => {
    const { client, control } = merchant('cli-pause');
    const paused = await control('merchant', 'pause');
    expect(paused).toMatchObject({
      code: 0,
      stdout: 'pause: cli-pause: AwaitingFirstSignedEvent, paused (status Enabled, subscription Active)\n',
    });
    await expect(client.send('BranchSynced', samplePayload('BranchSynced'))).rejects.toMatchObject({
      code: 'INTEGRATION_PAUSED',
    });
    expect((await control('merchant', 'resume')).code).toBe(0);
    expect((await client.send('BranchSynced', samplePayload('BranchSynced'))).status).toBe(200);
    await client.close();
  });

  it('confirms a branch, so an earn there is no longer BRANCH_MAPPING_UNCONFIRMED', async () => {
    const { client, control } = merchant('cli-branch');
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    await expect(client.send('InvoiceEarned', samplePayload('InvoiceEarned'))).rejects.toMatchObject({
      code: 'BRANCH_MAPPING_UNCONFIRMED',
    });
    expect(await control('branch', 'confirm', 'branch-olaya')).toMatchObject({
      code: 0,
      stdout: 'branch branch-olaya of cli-branch: confirmed\n',
    });
    expect((await client.send('InvoiceEarned', samplePayload('InvoiceEarned'))).status).toBe(200);
    await client.close();
  });

  it('disables, enables, disconnects and reconnects, printing the fresh test credentials', async () => {
    const { control } = merchant('cli-status');
    expect((await control('merchant', 'disable')).stdout).toBe(
      'disable: cli-status: Disabled (status Disabled, subscription Active)\n',
    );
    expect((await control('merchant', 'enable')).code).toBe(0);
    expect((await control('merchant', 'disconnect')).stdout).toContain('Disconnected');
    const reconnected = await control('merchant', 'reconnect');
    expect(reconnected.stdout).toMatch(
      /export LOYALTY_API_KEY=lk_test_\w+\n {2}export LOYALTY_SIGNING_SECRET=whsec_/,
    );
    expect(emulator.merchant('cli-status').connection).toBe('AwaitingFirstSignedEvent');
  });

  it('changes a rule, ships a Planned handler, and sets faults and latency', async () => {
    const { client, control } = merchant('cli-rules');
    const rule = await control(
      'rule',
      'set',
      'EarnRate',
      JSON.stringify({
        methodType: 'OnPurchase',
        pointCostAmount: 5,
        pointCostPoints: 1,
        minimumPurchase: 0,
        isActive: true,
      }),
    );
    expect(rule).toMatchObject({
      code: 0,
      stdout: 'EarnRate of cli-rules: ruleVersion 3, LoyaltyRuleChanged queued\n',
    });
    expect(emulator.merchant('cli-rules').earnRate?.pointCostAmount).toBe(5);
    await expect(
      client.send('CustomersSyncedBatch', samplePayload('CustomersSyncedBatch')),
    ).rejects.toMatchObject({
      code: 'EVENT_HANDLER_NOT_REGISTERED',
    });
    expect((await cli(['ship', 'CustomersSyncedBatch', '--url', url])).stdout).toBe(
      'shipped: CustomersSyncedBatch\n',
    );
    expect((await client.send('CustomersSyncedBatch', samplePayload('CustomersSyncedBatch'))).status).toBe(
      200,
    );
    expect((await cli(['faults', 'CONCURRENCY_CONFLICT', '--times', '1', '--url', url])).code).toBe(0);
    await expect(client.send('BranchSynced', samplePayload('BranchSynced'))).rejects.toMatchObject({
      code: 'CONCURRENCY_CONFLICT',
    });
    expect((await cli(['faults', 'clear', '--url', url])).stdout).toBe('faults: none\n');
    expect((await cli(['latency', '30', '--url', url])).stdout).toBe('latency: 30 ms\n');
    expect((await cli(['latency', '0', '--url', url])).code).toBe(0);
    await client.close();
  });

  it("exits 1 with the emulator's reason, 2 for a bad action, 3 when no emulator answers", async () => {
    const refused = await cli(['branch', 'confirm', 'nowhere', '--url', url, '--tenant-id', 'cli-pause']);
    expect(refused).toMatchObject({
      code: 1,
      stderr:
        'error: the emulator refused: INVALID_OPERATION: No branch "nowhere" has been synced for this merchant\n',
    });
    expect((await cli(['merchant', 'explode', '--url', url])).code).toBe(2);
    expect((await cli(['merchant', 'pause', '--url', url])).stderr).toMatch(
      /merchants \(.*\): pass --tenant-id/,
    );
    const gone = await cli(['merchant', 'pause', '--url', 'http://127.0.0.1:9', '--tenant-id', 'x']);
    expect(gone.code).toBe(3);
    expect(gone.stderr).toMatch(/^error: no emulator answers at http:\/\/127\.0\.0\.1:9/);
  });
});
