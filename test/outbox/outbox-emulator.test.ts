import { createEnvelope, LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore, memoryStore, type OutboxHooks } from 'loyalty-partner-sdk/outbox';
import { createEmulator, type Emulator } from 'loyalty-partner-sdk/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useTempDir } from '../support/temp-dir.js';
import { customer, invoice, recordingHooks, until } from './fixtures/outbox-harness.js';

/*
 * The outbox against the emulator on loopback, through a real LoyaltyClient: the answers come
 * from the service's own rules (mappings, pause, confirmation), not from a script.
 */

let emulator: Emulator;
let url: string;
const clients: LoyaltyClient[] = [];

beforeEach(async () => {
  emulator = createEmulator();
  ({ url } = await emulator.listen());
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await emulator.close();
});

function merchantOutbox(
  options: { autoConfirmBranches?: boolean; hooks?: OutboxHooks; probeIntervalMs?: number } = {},
) {
  const merchant = emulator.createMerchant({ autoConfirmBranches: options.autoConfirmBranches ?? true });
  const client = new LoyaltyClient({
    baseUrl: url,
    apiKey: merchant.apiKey,
    signingSecret: merchant.signingSecret,
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 5 },
  });
  clients.push(client);
  const outbox = createOutbox({
    client,
    store: memoryStore(),
    defaultTenantId: merchant.tenantId,
    retryDelayMs: 1,
    maxRetryDelayMs: 5,
    probeIntervalMs: options.probeIntervalMs ?? 5,
    hooks: options.hooks ?? {},
  });
  return { merchant, outbox };
}

const branch = { externalBranchId: 'branch-1', name: 'Olaya', isActive: true };

describe('outbox against the emulator', () => {
  it('credits an invoice enqueued right after the branch and customer it needs, in that order', async () => {
    const { merchant, outbox } = merchantOutbox();
    await outbox.start();
    await outbox.enqueue('BranchSynced', branch);
    await outbox.enqueue('CustomerSynced', customer);
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    const stats = await outbox.flush();
    await outbox.close();

    expect(stats).toMatchObject({ delivered: 3, pending: 0, parked: 0, dead: 0 });
    expect(emulator.events({ tenantId: merchant.tenantId }).map((r) => r.eventType)).toEqual([
      'BranchSynced',
      'CustomerSynced',
      'InvoiceEarned',
    ]);
    expect(emulator.events({ eventId })).toEqual([
      expect.objectContaining({ outcome: 'processed', status: 200 }),
    ]);
    expect(emulator.merchant(merchant.tenantId).invoices).toEqual([
      expect.objectContaining({ externalInvoiceId: 'inv-1', credited: true }),
    ]);
  });

  it('parks an invoice for an unconfirmed branch, goes on with the next events, and credits it once redelivered', async () => {
    const { merchant, outbox } = merchantOutbox({ autoConfirmBranches: false });
    await outbox.start();
    await outbox.enqueue('BranchSynced', branch);
    await outbox.enqueue('CustomerSynced', customer);
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('CustomerSynced', { ...customer, externalCustomerId: 'cust-2' });
    await outbox.flush();

    expect(outbox.list('parked')).toEqual([
      expect.objectContaining({
        eventId,
        lastError: expect.objectContaining({ code: 'BRANCH_MAPPING_UNCONFIRMED' }),
      }),
    ]);
    expect(emulator.merchant(merchant.tenantId).customers).toHaveLength(2);

    emulator.confirmBranch(merchant.tenantId, 'branch-1');
    await outbox.redeliver(eventId);
    const stats = await outbox.flush();
    await outbox.close();
    expect(stats).toMatchObject({ parked: 0, delivered: 4 });
    expect(emulator.merchant(merchant.tenantId).invoices).toEqual([
      expect.objectContaining({ credited: true }),
    ]);
  });

  it('pauses the tenant while the merchant has paused the integration, and delivers everything after resume', async () => {
    const recorder = recordingHooks();
    // Probes a second apart, so the one probe counted below is not followed by the next while
    // `flush()` settles on a loaded machine (5 ms apart, a second one was once counted).
    const { merchant, outbox } = merchantOutbox({ hooks: recorder.hooks, probeIntervalMs: 1_000 });
    await outbox.start();
    await outbox.enqueue('BranchSynced', branch);
    await outbox.flush();
    emulator.pause(merchant.tenantId);
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    const paused = await outbox.flush();
    expect(paused.tenants).toEqual([
      expect.objectContaining({ state: 'paused', reason: 'INTEGRATION_PAUSED', pending: 2 }),
    ]);
    expect(emulator.events({ eventType: 'InvoiceEarned' })).toEqual([]);
    // The probe is one HTTP attempt: the client does not spend its own retries on a paused tenant.
    const pausedAnswers = emulator.requests().filter((request) => request.code === 'INTEGRATION_PAUSED');
    expect(pausedAnswers).toHaveLength(1);

    emulator.resume(merchant.tenantId);
    await until(() => outbox.stats().delivered === 3);
    await outbox.close();
    expect(recorder.named('onTenantResumed')).toEqual([{ tenantId: merchant.tenantId }]);
    expect(emulator.merchant(merchant.tenantId).invoices).toEqual([
      expect.objectContaining({ credited: true }),
    ]);
  });

  it('counts a second invoice earn under a new eventId as already credited, not as a failure', async () => {
    const recorder = recordingHooks();
    const { merchant, outbox } = merchantOutbox({ hooks: recorder.hooks });
    await outbox.start();
    await outbox.enqueue('BranchSynced', branch);
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    const stats = await outbox.flush();
    await outbox.close();

    expect(stats).toMatchObject({ delivered: 4, dead: 0 });
    expect(
      recorder.named('onDelivered').map((info) => (info as { alreadyCredited: boolean }).alreadyCredited),
    ).toEqual([false, false, false, true]);
    expect(emulator.ledger(merchant.tenantId).filter((entry) => entry.kind === 'earn')).toHaveLength(1);
  });
});

describe('the envelope the outbox sends', () => {
  const dir = useTempDir('outbox-envelope-');

  function fileOutbox(merchant = emulator.createMerchant({ autoConfirmBranches: true })) {
    const client = new LoyaltyClient({
      baseUrl: url,
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
    });
    clients.push(client);
    const outbox = createOutbox({ client, store: fileStore(dir()), defaultTenantId: merchant.tenantId });
    return { merchant, outbox };
  }

  it('is the one validated at enqueue, frozen: it cannot be changed before it is sent', async () => {
    const { merchant, outbox } = fileOutbox();
    await outbox.start();
    await outbox.stopTenant(merchant.tenantId, 'held');
    await outbox.enqueue('BranchSynced', branch);
    const { eventId } = await outbox.enqueue('CustomerSynced', customer);
    const stored = outbox.get(eventId) as { envelope: { payload: { phone: string } } };

    expect(Object.isFrozen(stored.envelope)).toBe(true);
    expect(() => {
      stored.envelope.payload.phone = 'not a phone';
    }).toThrow(TypeError);
    await outbox.resumeTenant(merchant.tenantId);
    await outbox.flush();
    await outbox.close();
    expect(emulator.events({ eventId })).toEqual([expect.objectContaining({ outcome: 'processed' })]);
  });

  it('is still refused at send, nothing sent, when read back from the store and the contract refuses it', async () => {
    const valid = createEnvelope('InvoiceEarned', invoice('inv-1'));
    const envelope = { ...valid, payload: { ...valid.payload, earnType: 'Bogus' } };
    const merchant = emulator.createMerchant({ autoConfirmBranches: true });
    const store = fileStore(dir());
    await store.open();
    await store.append({
      eventId: envelope.eventId,
      tenantId: merchant.tenantId,
      envelope: envelope as unknown as typeof valid,
      seq: 1,
      enqueuedAt: Date.now(),
      state: 'pending',
      attempts: 0,
      firstAttemptAt: null,
      lastError: null,
    });
    await store.close();

    const { outbox } = fileOutbox(merchant);
    await outbox.start();
    const stats = await outbox.flush();
    const [dead] = outbox.list('dead');
    await outbox.close();

    expect(stats).toMatchObject({ delivered: 0, dead: 1 });
    expect(dead?.lastError).toMatchObject({ code: 'INVALID_PAYLOAD' });
    expect(emulator.events({ eventId: envelope.eventId })).toEqual([]);
  });
});
