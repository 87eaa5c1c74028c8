import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import {
  fileStore,
  memoryStore,
  OutboxClosedError,
  OutboxFullError,
  OutboxNotStartedError,
} from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { customer, fastOutbox, invoice, recordingHooks, until } from './fixtures/outbox-harness.js';
import { gate, networkError, ok, scriptedSender } from './fixtures/scripted-sender.js';
import { tempDirPerTest } from './fixtures/temp-dir.js';

let dir: string;
tempDirPerTest('outbox-', (path) => {
  dir = path;
});

describe('enqueue', () => {
  /** A started outbox on a file store whose sends wait until `hold` opens. */
  const heldOutbox = async () => {
    const hold = gate();
    const { sender, calls } = scriptedSender(() => hold.promise.then(() => ok()));
    const outbox = fastOutbox({ client: sender, store: fileStore(dir) });
    await outbox.start();
    return { hold, calls, outbox };
  };

  it('resolves with the eventId once the event is in the journal on disk, and delivers that eventId', async () => {
    const { hold, calls, outbox } = await heldOutbox();

    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    expect(await readFile(join(dir, 'outbox.journal'), 'utf8')).toContain(eventId);
    hold.open();
    await outbox.flush();
    await outbox.close();

    expect(calls.map((call) => call.eventId)).toEqual([eventId]);
  });

  it('makes 100 concurrent enqueues durable with far fewer fsyncs than events (group commit)', async () => {
    const store = fileStore(dir);
    const outbox = fastOutbox({ client: scriptedSender().sender, store });
    await outbox.start();
    await outbox.stopTenant('default', 'Disabled');
    const before = store.stats().flushes;
    const ids = await Promise.all(
      Array.from({ length: 100 }, (_, i) => outbox.enqueue('InvoiceEarned', invoice(`inv-${i}`))),
    );
    const flushes = store.stats().flushes - before;
    await outbox.close();

    expect(new Set(ids.map((id) => id.eventId)).size).toBe(100);
    expect(flushes).toBeLessThan(10);
    const restarted = fastOutbox({ client: scriptedSender().sender, store: fileStore(dir) });
    await restarted.start();
    expect(restarted.list('pending').map((event) => event.eventId)).toEqual(ids.map((id) => id.eventId));
    await restarted.close();
  });

  it('journals the first attempt time before the first attempt goes out, and hands it to the client', async () => {
    const { hold, calls, outbox } = await heldOutbox();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await until(() => calls.length === 1);

    const journal = await readFile(join(dir, 'outbox.journal'), 'utf8');
    const recorded = journal.match(new RegExp(`"id":"${eventId}","patch":\\{"firstAttemptAt":(\\d+)\\}`));
    expect(Number(recorded?.[1])).toBe(calls[0]!.firstAttemptAt);
    hold.open();
    await outbox.close();
  });

  it('refuses an invalid payload with LoyaltyValidationError and stores nothing', async () => {
    const store = memoryStore();
    const outbox = fastOutbox({ client: scriptedSender().sender, store });
    await outbox.start();
    const bad = { ...invoice('inv-1'), earnType: 'Stamps' } as const;

    const refusal = await outbox.enqueue('InvoiceEarned', bad).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(LoyaltyValidationError);
    expect(refusal).toMatchObject({ code: 'INVALID_PAYLOAD', issues: [{ path: 'payload.stampCardId' }] });
    expect(outbox.stats().pending).toBe(0);
    await outbox.close();
    expect((await store.open()).events).toEqual([]);
  });

  it('refuses an eventId that is not a UUIDv7 before storing anything', async () => {
    const store = memoryStore();
    const outbox = fastOutbox({ client: scriptedSender().sender, store });
    await outbox.start();
    const v4 = '0b9f6f0e-4c1e-4d3a-9d1c-2f6f1b7e9a10';
    await expect(outbox.enqueue('CustomerSynced', customer, { eventId: v4 })).rejects.toMatchObject({
      code: 'INVALID_PAYLOAD',
      issues: [expect.objectContaining({ path: 'eventId' })],
    });
    expect(outbox.stats().pending).toBe(0);
    await outbox.close();
    expect((await store.open()).events).toEqual([]);
  });

  it('refuses an event type the service sends, as the client would', async () => {
    const outbox = fastOutbox({ client: scriptedSender().sender, store: memoryStore() });
    await outbox.start();
    // @ts-expect-error an outbound type is not enqueueable
    const refusal = outbox.enqueue('IntegrationStatusChanged', { status: 'Enabled' });
    await expect(refusal).rejects.toMatchObject({ code: 'WRONG_EVENT_DIRECTION' });
    await outbox.close();
  });

  it('returns an eventId it already holds without storing the event twice', async () => {
    const store = memoryStore();
    const { sender } = scriptedSender(() => networkError());
    const outbox = fastOutbox({ client: sender, store, retryDelayMs: 60_000 });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await expect(outbox.enqueue('InvoiceEarned', invoice('inv-1'), { eventId })).resolves.toEqual({
      eventId,
    });
    expect(outbox.stats().pending).toBe(1);
    await outbox.close({ deadlineMs: 0 });
  });

  it('refuses a new event with OutboxFullError once the store is full, dropping nothing', async () => {
    const { sender } = scriptedSender();
    const outbox = fastOutbox({ client: sender, store: memoryStore({ maxEvents: 2 }) });
    await outbox.start();
    await outbox.stopTenant('default', 'Disabled');
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('InvoiceEarned', invoice('inv-2'));

    await expect(outbox.enqueue('InvoiceEarned', invoice('inv-3'))).rejects.toBeInstanceOf(OutboxFullError);
    expect(outbox.list('pending').map((event) => event.envelope.entityId)).toEqual(['inv-1', 'inv-2']);
    await outbox.close();
  });

  it('requires a tenantId when each tenant has its own client', async () => {
    const outbox = fastOutbox({ clientFor: () => scriptedSender().sender, store: memoryStore() });
    await outbox.start();
    await expect(outbox.enqueue('CustomerSynced', customer)).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
      issues: [{ path: 'tenantId' }],
    });
    await outbox.close();
  });

  it('refuses work before start and after close with typed errors', async () => {
    const outbox = fastOutbox({ client: scriptedSender().sender, store: memoryStore() });
    await expect(outbox.enqueue('CustomerSynced', customer)).rejects.toBeInstanceOf(OutboxNotStartedError);
    await outbox.start();
    await outbox.close();
    await expect(outbox.enqueue('CustomerSynced', customer)).rejects.toBeInstanceOf(OutboxClosedError);
  });
});

describe('delivery order and concurrency', () => {
  it('delivers a CustomerSynced enqueued before an InvoiceEarned first, holding the invoice back while the customer is retried', async () => {
    const { sender, calls } = scriptedSender((envelope, call) =>
      envelope.eventType === 'CustomerSynced' && call <= 2 ? networkError() : ok(),
    );
    const outbox = fastOutbox({ client: sender, store: memoryStore() });
    await outbox.start();
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await outbox.enqueue('InvoiceEarned', invoice('inv-2'));
    await until(() => outbox.stats().delivered === 3);
    await outbox.close();

    expect(calls.map((call) => call.invoice ?? call.eventType)).toEqual([
      'CustomerSynced',
      'CustomerSynced',
      'CustomerSynced',
      'inv-1',
      'inv-2',
    ]);
  });

  it('delivers different tenants in parallel, never more than `concurrency` at once', async () => {
    let active = 0;
    let peak = 0;
    const release = gate();
    const { sender, calls } = scriptedSender(async () => {
      active += 1;
      peak = Math.max(peak, active);
      await release.promise;
      active -= 1;
      return ok();
    });
    const outbox = fastOutbox({ clientFor: () => sender, store: memoryStore(), concurrency: 2 });
    await outbox.start();
    for (const tenantId of ['t1', 't2', 't3']) {
      await outbox.enqueue('InvoiceEarned', invoice(`${tenantId}-a`), { tenantId });
      await outbox.enqueue('InvoiceEarned', invoice(`${tenantId}-b`), { tenantId });
    }
    await until(() => calls.length === 2);
    expect(new Set(calls.map((call) => call.invoice))).toEqual(new Set(['t1-a', 't2-a']));
    release.open();
    await outbox.flush();
    await outbox.close();

    expect(peak).toBe(2);
    for (const tenantId of ['t1', 't2', 't3']) {
      const own = calls.map((call) => call.invoice).filter((id) => id?.startsWith(tenantId));
      expect(own).toEqual([`${tenantId}-a`, `${tenantId}-b`]);
    }
  });

  it('flush resolves offline after one round of attempts, leaving the events pending for later', async () => {
    const recorder = recordingHooks();
    const { sender } = scriptedSender(() => networkError(6));
    const outbox = fastOutbox({
      client: sender,
      store: memoryStore(),
      retryDelayMs: 60_000,
      hooks: recorder.hooks,
    });
    await outbox.start();
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));

    const stats = await outbox.flush();
    expect(stats).toMatchObject({ pending: 2, delivered: 0 });
    expect(outbox.list('pending')[0]).toMatchObject({ attempts: 6, lastError: { code: 'NETWORK_ERROR' } });
    expect(recorder.named('onRetry')).toEqual([expect.objectContaining({ code: 'NETWORK_ERROR' })]);
    await outbox.close();
  });
});

describe('close', () => {
  it('lets a send in flight finish within the deadline', async () => {
    const recorder = recordingHooks();
    const release = gate();
    const { sender } = scriptedSender(() => release.promise.then(() => ok()));
    const store = memoryStore();
    const outbox = fastOutbox({ client: sender, store, hooks: recorder.hooks });
    await outbox.start();
    await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await until(() => outbox.stats().inFlight === 1);

    const closing = outbox.close({ deadlineMs: 30_000 });
    release.open();
    await closing;
    expect(recorder.named('onDelivered')).toHaveLength(1);
    expect((await store.open()).events).toEqual([]);
  });

  it('aborts a send still in flight at the deadline and leaves the event for the next start', async () => {
    const { sender, calls } = scriptedSender(() => new Promise(() => {}));
    const store = memoryStore();
    const outbox = fastOutbox({ client: sender, store });
    await outbox.start();
    const { eventId } = await outbox.enqueue('InvoiceEarned', invoice('inv-1'));
    await until(() => calls.length === 1);
    await outbox.close({ deadlineMs: 10 });

    const next = scriptedSender();
    const restarted = fastOutbox({ client: next.sender, store });
    await restarted.start();
    expect(restarted.list('pending').map((event) => event.eventId)).toEqual([eventId]);
    await restarted.flush();
    await restarted.close();
    expect(next.calls.map((call) => call.eventId)).toEqual([eventId]);
  });
});

describe('flush and close together', () => {
  it('lets a flush waiting for a retry that fell due resolve when the outbox closes', async () => {
    let clock = 1_800_000_000_000;
    const { sender, calls } = scriptedSender(() => networkError());
    const outbox = fastOutbox({
      client: sender,
      store: memoryStore(),
      retryDelayMs: 60_000,
      now: () => clock,
    });
    await outbox.start();
    await outbox.enqueue('CustomerSynced', customer);
    await outbox.flush();
    // The retry is due by the outbox's clock, but its timer will not fire for a minute.
    clock += 120_000;
    const flushing = outbox.flush();
    await outbox.close();
    await expect(flushing).resolves.toMatchObject({ pending: 1 });
    expect(calls).toHaveLength(1);
  });
});
