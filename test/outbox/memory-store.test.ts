import { memoryStore, OutboxClosedError, OutboxFullError } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { storedEvent } from './fixtures/stored-events.js';

describe('memoryStore', () => {
  it('gives back what it held when opened again, as a restart would', async () => {
    const store = memoryStore();
    await store.open();
    const [a, b] = [storedEvent(1), storedEvent(2)];
    await store.append(b);
    await store.append(a);
    await store.update(a.eventId, { state: 'dead', lastError: { code: 'INVALID_PAYLOAD', message: 'm' } });
    await store.setTenantStop('tenant-a', { tenantId: 'tenant-a', reason: 'Disabled', since: 1 });
    await store.close();

    const snapshot = await store.open();
    expect(snapshot.events).toEqual([
      { ...a, state: 'dead', lastError: { code: 'INVALID_PAYLOAD', message: 'm' } },
      b,
    ]);
    expect(snapshot.stoppedTenants).toEqual([{ tenantId: 'tenant-a', reason: 'Disabled', since: 1 }]);
    await store.close();
  });

  it('keeps its own copy, so a caller mutating its object later changes nothing stored', async () => {
    const store = memoryStore();
    await store.open();
    const event = storedEvent(1);
    await store.append(event);
    (event.envelope.payload as { externalInvoiceId: string }).externalInvoiceId = 'changed';
    await store.close();
    const [held] = (await store.open()).events;
    expect((held!.envelope.payload as { externalInvoiceId: string }).externalInvoiceId).toBe('inv-1');
  });

  it('applies the same limits as the file store', async () => {
    const store = memoryStore({ maxEvents: 1 });
    await store.open();
    await store.append(storedEvent(1));
    await expect(store.append(storedEvent(2))).rejects.toBeInstanceOf(OutboxFullError);
    await store.close();
    expect((await store.open()).events.map((event) => event.seq)).toEqual([1]);
  });

  it('refuses writes once closed', async () => {
    const store = memoryStore();
    await store.open();
    await store.close();
    await expect(store.append(storedEvent(1))).rejects.toBeInstanceOf(OutboxClosedError);
  });
});
