import { createServer } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { createNodeListener } from 'loyalty-partner-sdk/node';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli } from './run.js';
import { secretDir } from './secret-dir.js';

const SECRET = 'whsec_trigger_test_0123456789';
const files = secretDir('trigger-', SECRET);
let url: string;
let close: () => Promise<void>;
const seen: { eventType: string; tenantId: string; payload: unknown }[] = [];

beforeAll(async () => {
  const record = (event: { eventType: string; payload: unknown }, ctx: { tenantId: string }) =>
    void seen.push({ eventType: event.eventType, tenantId: ctx.tenantId, payload: event.payload });
  const receiver = createReceiver({
    secrets: (tenantId) => (tenantId === 'merchant-1' ? [SECRET] : undefined),
    handlers: { IntegrationStatusChanged: record, LoyaltyRuleChanged: record },
  });
  const server = createServer(createNodeListener(receiver));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(async () => {
  await close();
});

/** `--to` the receiver, signed with the suite's secret, as `tenant`. */
const signedTo = (tenant: string, receiver = url) => [
  '--to',
  receiver,
  '--secret-file',
  files.secretFile,
  '--tenant',
  tenant,
];
const trigger = (args: string[], stdin?: string) =>
  cli(['trigger', ...args], stdin === undefined ? {} : { stdin });

describe('loyalty-partner trigger', () => {
  it('sends one signed sample delivery with a field set, and prints the answer', async () => {
    seen.length = 0;
    const run = await trigger([
      'IntegrationStatusChanged',
      ...signedTo('merchant-1'),
      '--set',
      'status=Disabled',
    ]);
    expect(seen).toEqual([
      { eventType: 'IntegrationStatusChanged', tenantId: 'merchant-1', payload: { status: 'Disabled' } },
    ]);
    expect(run.stdout).toMatch(
      /^sent IntegrationStatusChanged to http:\/\/127\.0\.0\.1:\d+\/webhooks as tenant merchant-1\n\{"eventId":/,
    );
    expect(run.stdout).toMatch(
      /\nanswered HTTP 200 \(\d+ ms\)\n\{"outcome":"handled","eventId":"[0-9a-f-]{36}"/,
    );
    expect(run.stdout + run.stderr).not.toContain(SECRET);
    expect(run.code).toBe(0);
  });

  it('sets nested fields and numbers with a dotted path, on a payload read from stdin', async () => {
    seen.length = 0;
    const payload = {
      externalStoreId: 'store-9',
      ruleType: 'EarnRate',
      ruleVersion: 1,
      effectiveFrom: '2026-11-20T00:00:00Z',
      payload: {
        methodType: 'OnVisit',
        pointCostAmount: null,
        pointCostPoints: null,
        pointsPerVisit: 1,
        minimumPurchase: 0,
        isActive: true,
      },
    };
    const run = await trigger(
      [
        'LoyaltyRuleChanged',
        ...signedTo('merchant-1'),
        '--payload',
        '-',
        '--set',
        'ruleVersion=7',
        '--set',
        'payload.pointsPerVisit=3',
      ],
      JSON.stringify(payload),
    );
    expect(run.code).toBe(0);
    expect(seen[0]?.payload).toMatchObject({
      externalStoreId: 'store-9',
      ruleVersion: 7,
      payload: { pointsPerVisit: 3 },
    });
  });

  it("prints the receiver's refusal and exits 1 when it does not answer 2xx", async () => {
    const run = await trigger(['IntegrationStatusChanged', ...signedTo('merchant-404')]);
    expect(run.stdout).toMatch(
      /answered HTTP 401 INVALID_SIGNATURE \(\d+ ms\)\n\{"code":"INVALID_SIGNATURE"/,
    );
    expect(run.code).toBe(1);
  });

  it('says why there was no answer and exits 3 when the receiver is down', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createNetServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const run = await trigger([
      'IntegrationStatusChanged',
      '--to',
      `http://127.0.0.1:${port}/webhooks`,
      '--secret-file',
      files.secretFile,
    ]);
    expect(run.stderr).toMatch(/error: no answer: connection refused/);
    expect(run.code).toBe(3);
  });

  it.each([
    [
      ['InvoiceEarned', '--to', 'http://x/', '--secret-file', 'f'],
      /name an outbound event type: RefundReversalCompleted, LoyaltyRuleChanged/,
    ],
    [['IntegrationStatusChanged', '--secret-file', 'f'], /--to <receiver url> is required/],
    [['IntegrationStatusChanged', '--to', 'http://x/'], /--secret-file <path> is required/],
    [['IntegrationStatusChanged', '--to', 'http://x/', '--set', 'status'], /--set wants field=value/],
    [
      ['IntegrationStatusChanged', '--to', 'http://x/', '--set', 'status=Paused'],
      /Invalid IntegrationStatusChanged payload: payload\.status: must be one of 'Enabled', 'Disabled', 'Disconnected'/,
    ],
  ])('refuses %j before sending anything, with exit 2', async (argv, message) => {
    const args = argv.includes('--secret-file') ? argv.map((a) => (a === 'f' ? files.secretFile : a)) : argv;
    const needsSecret = !argv.includes('--secret-file') && argv.includes('--set');
    const run = await trigger(needsSecret ? [...args, '--secret-file', files.secretFile] : args);
    expect(run.stderr).toMatch(message);
    expect(run.code).toBe(2);
  });
});
