import { PassThrough } from 'node:stream';
import { LoyaltyClient, LoyaltyNetworkError } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createTrafficLog } from '../../../src/cli/emulate/traffic-log.js';
import { createStyle } from '../../../src/cli/io.js';

const plain = createStyle({
  stdout: Object.assign(new PassThrough(), { isTTY: false }),
  stderr: new PassThrough(),
  stdin: new PassThrough(),
  env: {},
});
const TIME = '\\d\\d:\\d\\d:\\d\\d\\.\\d{3}';

describe('the emulate traffic log', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** A merchant's client on `emulator`, and the traffic log of that emulator, line by line. */
  function logged(emulator: Emulator, merchantOptions: Parameters<Emulator['createMerchant']>[0]) {
    const merchant = emulator.createMerchant(merchantOptions);
    const client = new LoyaltyClient({
      baseUrl: 'http://loyalty.test',
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
      fetch: emulator.fetch,
      retry: false,
    });
    closers.push(
      () => client.close(),
      () => emulator.close(),
    );
    const lines: string[] = [];
    const log = createTrafficLog(emulator, (line) => lines.push(line), plain);
    return { emulator, client, lines, log };
  }
  /** A merchant whose receiver answers 503 once, then 200. */
  function setup() {
    const answers = [503, 200, 200, 200];
    const emulator = createEmulator({
      receiverUrl: 'http://receiver.test/hooks',
      fetch: async () => new Response(null, { status: answers.shift() ?? 200 }),
    });
    return logged(emulator, { tenantId: 'cafe-olaya' });
  }

  it('writes one line per request and per webhook attempt, each once, without a key or a secret', async () => {
    const { emulator, client, lines, log } = setup();
    log.flush();
    expect(lines).toEqual([
      expect.stringMatching(
        new RegExp(`^${TIME} webhook IntegrationStatusChanged queued until the first signed event`),
      ),
      expect.stringMatching(/webhook LoyaltyRuleChanged queued .* tenant cafe-olaya$/),
      expect.stringMatching(/webhook LoyaltyRuleChanged queued /),
    ]);
    const { eventId, correlationId } = await client.send('BranchSynced', samplePayload('BranchSynced'));
    await emulator.idle();
    log.flush();
    log.flush();
    expect(lines.slice(3)).toEqual([
      `${lines[3]?.slice(0, 12)} POST /api/partner/v1/events 200 processed BranchSynced eventId ${eventId} tenant cafe-olaya correlationId ${correlationId}`,
      expect.stringMatching(
        /webhook IntegrationStatusChanged -> http:\/\/receiver\.test\/hooks attempt 1: 503 retry, next at \S+ eventId /,
      ),
      expect.stringMatching(/webhook LoyaltyRuleChanged -> \S+ attempt 1: 200 delivered eventId /),
      expect.stringMatching(/webhook LoyaltyRuleChanged -> \S+ attempt 1: 200 delivered eventId /),
    ]);
    expect(lines.join('\n')).not.toMatch(/lk_test_|whsec_/);
  });

  it('logs a request a fault dropped, with no answer', async () => {
    const { emulator, client, lines, log } = setup();
    emulator.injectFaults({ kinds: ['reset'], times: 1 });
    await expect(client.send('BranchSynced', samplePayload('BranchSynced'))).rejects.toBeInstanceOf(
      LoyaltyNetworkError,
    );
    log.flush();
    expect(lines.filter((line) => line.includes('POST'))).toEqual([
      expect.stringMatching(
        /POST \/api\/partner\/v1\/events no answer \(fault: reset\) BranchSynced eventId /,
      ),
    ]);
  });

  it('reads again only the deliveries it saw under way, however many the emulator keeps', async () => {
    const { emulator, client, lines } = setup();
    let read = 0;
    const counted = Object.create(emulator, {
      deliveries: {
        value: (filter?: Parameters<typeof emulator.deliveries>[0]) => {
          const copies = emulator.deliveries(filter);
          read += copies.length;
          return copies;
        },
      },
    });
    const follower = createTrafficLog(counted, (line) => lines.push(line), plain);
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    for (let i = 0; i < 20; i++) {
      emulator.setStatus('cafe-olaya', i % 2 === 0 ? 'Disabled' : 'Enabled');
      await emulator.idle();
      follower.flush();
    }
    const delivered = lines.filter((line) => / attempt 1: 200 delivered/.test(line));
    expect(delivered).toHaveLength(22);
    // Of the 23 kept, only the first is read again: its attempt 1 got 503, it waits for its retry.
    const before = read;
    follower.flush();
    follower.flush();
    expect(read - before).toBe(2);
    expect(emulator.deliveries()).toHaveLength(23);
    expect(emulator.deliveries({ status: 'retry-scheduled' })).toHaveLength(1);
  });

  it('says what an earn credited and the new balance, and why a refused event was refused', async () => {
    const { emulator, client, lines, log } = logged(createEmulator(), {
      tenantId: 'cafe-malaz',
      autoConfirmBranches: true,
    });
    log.flush();
    // No receiver URL: the queued line says so, not only "the first signed event".
    expect(lines[0]).toMatch(/queued until the merchant has a receiver URL \(emulate --receiver-url\)/);
    await client.send('BranchSynced', samplePayload('BranchSynced'));
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    const earn = samplePayload('InvoiceEarned');
    const { eventId } = await client.send('InvoiceEarned', earn);
    const points = emulator.balance('cafe-malaz', earn.externalCustomerId).points;
    expect(points).toBeGreaterThan(0);
    await client
      .send('InvoiceEarned', {
        ...earn,
        externalInvoiceId: 'inv-2',
        earnType: 'Stamps',
        stampCardId: 'no-card',
      })
      .catch(() => undefined);
    log.flush();
    expect(lines.find((line) => line.includes(eventId))).toMatch(
      new RegExp(
        `200 processed InvoiceEarned eventId ${eventId} .*: credited ${points} points? to ${earn.externalCustomerId} \\(balance now ${points} points?\\)$`,
      ),
    );
    expect(lines.find((line) => line.includes('STAMP_CARD_NOT_FOUND'))).toMatch(
      /400 rejected STAMP_CARD_NOT_FOUND \([^)]+\) InvoiceEarned/,
    );
  });

  it('says a queued webhook waits only for the first signed event when a receiver URL is set', () => {
    const { lines, log } = setup();
    log.flush();
    expect(lines[0]).toMatch(/queued until the first signed event proves the credentials eventId/);
  });
});
