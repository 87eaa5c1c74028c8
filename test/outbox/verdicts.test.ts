import { ERROR_CODES, type ErrorCode, type ErrorCodeInfo, LoyaltyApiError } from 'loyalty-partner-sdk';
import { memoryStore, OutboxDuplicateRiskError, OutboxEventStateError } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { customer, fastOutbox, invoice, recordingHooks, until } from './fixtures/outbox-harness.js';
import { apiError, networkError, ok, scriptedSender } from './fixtures/scripted-sender.js';

const codes = Object.keys(ERROR_CODES) as ErrorCode[];
const info = (code: ErrorCode): ErrorCodeInfo => ERROR_CODES[code];
const pauseCodes = codes.filter((code) => info(code).tenantWide && info(code).action !== 'reauthenticate');
const stopCodes = codes.filter((code) => info(code).action === 'reauthenticate');
const setupCodes = codes.filter((code) => info(code).action === 'fix-setup' && !info(code).tenantWide);
const HOUR = 60 * 60 * 1000;

describe('parked events', () => {
  it.each(setupCodes)(
    'parks %s with its code, delivers the later events, and redelivers it after the fix',
    async (code) => {
      const recorder = recordingHooks();
      let fixed = false;
      const { sender, calls } = scriptedSender((envelope) =>
        (envelope.payload as { externalInvoiceId: string }).externalInvoiceId === 'inv-1' && !fixed
          ? apiError(code)
          : ok(),
      );
      const outbox = fastOutbox({ client: sender, store: memoryStore(), hooks: recorder.hooks });
      await outbox.start();
      const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
      await outbox.enqueue('InvoiceEarned', invoice('inv-2'));
      await outbox.flush();

      expect(outbox.list('parked')).toEqual([
        expect.objectContaining({
          eventId,
          state: 'parked',
          attempts: 1,
          lastError: expect.objectContaining({ code, status: 400 }),
        }),
      ]);
      expect(recorder.named('onParked')).toEqual([
        expect.objectContaining({ code, event: expect.objectContaining({ eventId }) }),
      ]);
      expect(calls.map((call) => call.invoice)).toEqual(['inv-1', 'inv-2']);

      fixed = true;
      await outbox.redeliver(eventId);
      await outbox.flush();
      await outbox.close();
      expect(outbox.list('parked')).toEqual([]);
      expect(calls.map((call) => call.invoice)).toEqual(['inv-1', 'inv-2', 'inv-1']);
    },
  );

  it('starts a fresh dedup window on redelivery: a 400 answer proves nothing was credited', async () => {
    let clock = 1_800_000_000_000;
    let fixed = false;
    const { sender, calls } = scriptedSender(() => (fixed ? ok() : apiError('BRANCH_MAPPING_UNCONFIRMED')));
    const outbox = fastOutbox({ client: sender, store: memoryStore(), now: () => clock });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.flush();
    clock += 30 * HOUR;
    fixed = true;
    await outbox.redeliver(eventId);
    await outbox.flush();
    await outbox.close();

    expect(calls.map((call) => call.firstAttemptAt)).toEqual([clock - 30 * HOUR, clock]);
    expect(outbox.stats()).toMatchObject({ delivered: 1, expired: 0 });
  });
});

describe('dead events', () => {
  it('keeps a payload defect as dead with the code and message until it is discarded', async () => {
    const recorder = recordingHooks();
    const { sender } = scriptedSender((envelope) =>
      envelope.eventType === 'InvoiceEarned' ? apiError('STAMP_CARD_NOT_FOUND') : ok(),
    );
    const outbox = fastOutbox({ client: sender, store: memoryStore(), hooks: recorder.hooks });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.flush();

    const [dead] = outbox.list('dead');
    expect(dead).toMatchObject({ eventId, lastError: { code: 'STAMP_CARD_NOT_FOUND', status: 400 } });
    expect(dead!.lastError!.message).toContain('STAMP_CARD_NOT_FOUND');
    expect(recorder.named('onDead')).toEqual([expect.objectContaining({ code: 'STAMP_CARD_NOT_FOUND' })]);
    expect(outbox.stats()).toMatchObject({ dead: 1, delivered: 1, pending: 0 });

    await outbox.discard(eventId);
    expect(outbox.list('dead')).toEqual([]);
    await expect(outbox.discard(eventId)).rejects.toBeInstanceOf(OutboxEventStateError);
    await outbox.close();
  });

  it('counts PARTNER_INVOICE_ALREADY_EARNED as delivered: the invoice is credited already', async () => {
    const recorder = recordingHooks();
    const { sender } = scriptedSender(() => apiError('PARTNER_INVOICE_ALREADY_EARNED'));
    const outbox = fastOutbox({ client: sender, store: memoryStore(), hooks: recorder.hooks });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    const stats = await outbox.flush();
    await outbox.close();

    expect(stats).toMatchObject({ delivered: 1, pending: 0, dead: 0, parked: 0 });
    expect(recorder.named('onDelivered')).toEqual([
      expect.objectContaining({ alreadyCredited: true, status: 400 }),
    ]);
  });
});

describe('paused tenants', () => {
  it.each(pauseCodes)(
    'pauses the whole tenant on %s, probes with its head only, and delivers the rest once it ends',
    async (code) => {
      const recorder = recordingHooks();
      const { sender, calls } = scriptedSender((_envelope, call) => (call <= 3 ? apiError(code, 2) : ok()));
      const outbox = fastOutbox({ client: sender, store: memoryStore(), hooks: recorder.hooks });
      await outbox.start();
      const { eventId } = await outbox.enqueue('CustomerSynced', customer);
      await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
      await outbox.enqueue('InvoiceEarned', invoice('inv-2'));
      await until(() => outbox.stats().delivered === 3);
      await outbox.close();

      expect(calls.slice(0, 4).map((call) => call.eventId)).toEqual([eventId, eventId, eventId, eventId]);
      expect(calls.map((call) => call.invoice ?? call.eventType)).toEqual([
        ...Array(4).fill('CustomerSynced'),
        'inv-1',
        'inv-2',
      ]);
      expect(recorder.named('onTenantPaused')).toEqual([{ tenantId: 'default', code }]);
      expect(recorder.named('onTenantResumed')).toEqual([{ tenantId: 'default' }]);
      expect(recorder.named('onRetry')).toEqual([]);
      expect(recorder.named('onDelivered')[0]).toMatchObject({ attempts: 7 });
    },
  );

  it('reports a paused tenant as settled, so flush does not wait for the merchant', async () => {
    const { sender } = scriptedSender(() => apiError('INTEGRATION_PAUSED'));
    const outbox = fastOutbox({ client: sender, store: memoryStore(), probeIntervalMs: 60_000 });
    await outbox.start();
    await outbox.enqueue('CustomerSynced', customer);
    const stats = await outbox.flush();
    await outbox.close();
    expect(stats.tenants).toEqual([
      expect.objectContaining({
        tenantId: 'default',
        state: 'paused',
        reason: 'INTEGRATION_PAUSED',
        pending: 1,
      }),
    ]);
  });
});

describe('stopped tenants', () => {
  it.each(stopCodes)(
    'stops the tenant on %s and resumes it with a client holding fresh credentials',
    async (code) => {
      const recorder = recordingHooks();
      const revoked = scriptedSender((envelope) =>
        envelope.eventType === 'CustomerSynced' ? apiError(code) : ok(),
      );
      const other = scriptedSender();
      const outbox = fastOutbox({
        clientFor: (tenantId) => (tenantId === 'a' ? revoked.sender : other.sender),
        store: memoryStore(),
        hooks: recorder.hooks,
      });
      await outbox.start();
      await outbox.enqueue('CustomerSynced', customer, { tenantId: 'a' });
      await outbox.enqueue('InvoiceEarned', invoice('inv-1'), { tenantId: 'a' });
      await outbox.enqueue('InvoiceEarned', invoice('inv-9'), { tenantId: 'b' });
      const stats = await outbox.flush();

      expect(revoked.calls).toHaveLength(1);
      expect(other.calls.map((call) => call.invoice)).toEqual(['inv-9']);
      expect(stats.tenants).toEqual([
        expect.objectContaining({ tenantId: 'a', state: 'stopped', reason: code, pending: 2 }),
        expect.objectContaining({ tenantId: 'b', state: 'active', pending: 0 }),
      ]);
      expect(recorder.named('onTenantStopped')).toEqual([{ tenantId: 'a', reason: code }]);

      const fresh = scriptedSender();
      await outbox.resumeTenant('a', { client: fresh.sender });
      await outbox.flush();
      await outbox.close();
      expect(fresh.calls.map((call) => call.invoice ?? call.eventType)).toEqual(['CustomerSynced', 'inv-1']);
      expect(revoked.calls).toHaveLength(1);
    },
  );

  it('keeps a tenant stopped across a restart, still accepting its new events', async () => {
    const store = memoryStore();
    const first = fastOutbox({ client: scriptedSender().sender, store });
    await first.start();
    await first.stopTenant('default', 'Disconnected');
    await first.close();

    const { sender, calls } = scriptedSender();
    const second = fastOutbox({ client: sender, store });
    await second.start();
    await second.enqueue('CustomerSynced', customer);
    const stats = await second.flush();
    expect(calls).toEqual([]);
    expect(stats.tenants).toEqual([
      expect.objectContaining({ state: 'stopped', reason: 'Disconnected', pending: 1 }),
    ]);
    await second.resumeTenant('default');
    await second.flush();
    await second.close();
    expect(calls).toHaveLength(1);
  });
});

describe('expired events', () => {
  it('does not retry an event whose first attempt is over 23 hours old, and waits for a decision', async () => {
    const recorder = recordingHooks();
    let clock = 1_800_000_000_000;
    let online = false;
    const { sender, calls } = scriptedSender(() => (online ? ok() : networkError(6)));
    const outbox = fastOutbox({
      client: sender,
      store: memoryStore(),
      hooks: recorder.hooks,
      now: () => clock,
    });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('InvoiceEarned', invoice('inv-2'));
    await outbox.flush();
    // The retries are 1 to 5 ms apart: on a loaded machine a second round may have gone before
    // flush() resolved. Whatever went before the clock passes 23 hours, nothing goes after.
    const [before] = outbox.list('pending').filter((event) => event.eventId === eventId);
    const sentBefore = calls.length;
    expect(before!.attempts % 6).toBe(0);
    expect(calls.map((call) => call.invoice)).toEqual(Array(sentBefore).fill('inv-1'));
    clock += 23 * HOUR + 1;
    online = true;
    await until(() => outbox.stats().delivered === 1);

    expect(outbox.list('expired')).toEqual([
      expect.objectContaining({ eventId, attempts: before!.attempts }),
    ]);
    expect(recorder.named('onExpired')).toEqual([
      { event: expect.objectContaining({ eventId, state: 'expired' }) },
    ]);
    expect(calls.slice(sentBefore).map((call) => call.invoice)).toEqual(['inv-2']);

    await expect(outbox.redeliver(eventId)).rejects.toBeInstanceOf(OutboxDuplicateRiskError);
    await outbox.redeliver(eventId, { acceptDuplicateRisk: true });
    await outbox.flush();
    await outbox.close();
    expect(calls.slice(sentBefore).map((call) => call.invoice)).toEqual(['inv-2', 'inv-1']);
    expect(calls.at(-1)!.firstAttemptAt).toBe(clock);
  });

  it('discards an expired event when the operator decides against the risk', async () => {
    let clock = 1_800_000_000_000;
    const { sender } = scriptedSender(() => networkError());
    const outbox = fastOutbox({ client: sender, store: memoryStore(), now: () => clock });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.flush();
    clock += 24 * HOUR;
    await until(() => outbox.list('expired').length === 1);
    await outbox.discard(eventId);
    await outbox.close();
    expect(outbox.stats()).toMatchObject({ expired: 0, pending: 0, delivered: 0 });
  });
});

describe('codes this version does not know', () => {
  it.each([
    { status: 401, retryable: false, action: 'stop', outcome: 'tenant stopped' },
    { status: 400, retryable: false, action: 'stop', outcome: 'dead' },
    { status: 503, retryable: true, action: 'retry', outcome: 'retried' },
  ] as const)(
    'treats an unknown $status code by its status: $outcome',
    async ({ status, retryable, action, outcome }) => {
      const recorder = recordingHooks();
      const unknown = new LoyaltyApiError(
        { status, code: 'SOMETHING_NEW', action, retryable, attempts: 1, eventId: undefined },
        'a newer service',
      );
      const { sender } = scriptedSender((_envelope, call) => (call === 1 ? unknown : ok()));
      const outbox = fastOutbox({
        client: sender,
        store: memoryStore(),
        hooks: recorder.hooks,
        retryDelayMs: 60_000,
      });
      await outbox.start();
      await outbox.enqueue('CustomerSynced', customer);
      const stats = await outbox.flush();
      await outbox.close();

      const observed =
        stats.tenants[0]?.state === 'stopped'
          ? 'tenant stopped'
          : stats.dead === 1
            ? 'dead'
            : recorder.named('onRetry').length === 1
              ? 'retried'
              : 'other';
      expect(observed).toBe(outcome);
    },
  );
});
