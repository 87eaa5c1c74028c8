import { createEnvelope, type InboundEnvelope } from 'loyalty-partner-sdk';
import { memoryStore, type StoredEvent } from 'loyalty-partner-sdk/outbox';
import { describe, expect, it } from 'vitest';
import { LocalQueue } from '../../src/outbox/local-queue.js';
import { storedEvent } from './fixtures/stored-events.js';

// The scheduler sleeps `nextDueIn` milliseconds after each claim. On a loaded machine a retry's
// wait can end between the claim that found it not yet due and the scheduler's choice of sleep.
describe('LocalQueue.nextDueIn', () => {
  async function queueWithRetry() {
    let clock = 1_000;
    const queue = new LocalQueue(memoryStore(), () => clock);
    await queue.open();
    const event = storedEvent(1);
    await queue.append(event);
    const [claimed] = await queue.claim({ limit: 1, maxInFlight: 1, leaseMs: 60_000, skipTenants: [] });
    expect(claimed?.eventId).toBe(event.eventId);
    await queue.record([{ kind: 'retry', eventId: event.eventId, patch: { attempts: 1 }, retryAfterMs: 5 }]);
    return { queue, advance: (ms: number) => (clock += ms) };
  }

  it('gives the time left before a retry is due', async () => {
    const { queue, advance } = await queueWithRetry();
    advance(2);
    expect(queue.nextDueIn(new Set(), true)).toBe(3);
  });

  it('wakes the scheduler at once when nothing is in flight and a retry fell due after the last claim', async () => {
    const { queue, advance } = await queueWithRetry();
    advance(6);
    expect(queue.nextDueIn(new Set(), true)).toBe(0);
  });

  it('gives the time left before a retry is due while other events are in flight', async () => {
    const { queue, advance } = await queueWithRetry();
    advance(2);
    expect(queue.nextDueIn(new Set(), false)).toBe(3);
  });

  it('forgets the retry wait of an event discarded while it waited', async () => {
    const { queue } = await queueWithRetry();
    const [waiting] = queue.list('pending');
    await queue.remove([waiting!.eventId]);
    expect(queue.nextDueIn(new Set(), false)).toBeUndefined();
  });

  it('leaves a due event to the answer of an earlier one while something is in flight', async () => {
    const { queue, advance } = await queueWithRetry();
    advance(6);
    expect(queue.nextDueIn(new Set(), false)).toBeUndefined();
  });
});

// The claim counts a tenant's events in flight as they are claimed and answered, instead of
// scanning its whole backlog at every claim.
describe('LocalQueue.claim', () => {
  /** Pending InvoiceEarned of its own customer and invoice: nothing orders it after another. */
  function independentEvent(seq: number): StoredEvent {
    const envelope = createEnvelope('InvoiceEarned', {
      externalInvoiceId: `inv-${seq}`,
      externalCustomerId: `cust-${seq}`,
      externalBranchId: 'branch-olaya',
      subtotalAfterDiscountBeforeVat: 10,
      earnType: 'Points',
      channel: 'Pos',
    }) as InboundEnvelope;
    return { ...storedEvent(seq), eventId: envelope.eventId, envelope };
  }

  async function queueOf(count: number) {
    const queue = new LocalQueue(memoryStore(), () => 1_000);
    await queue.open();
    for (let seq = 1; seq <= count; seq++) await queue.append(independentEvent(seq));
    const claim = () => queue.claim({ limit: 10, maxInFlight: 2, leaseMs: 60_000, skipTenants: [] });
    return { queue, claim };
  }

  it('claims no more than maxInFlight of a tenant until one of them is answered', async () => {
    const { queue, claim } = await queueOf(5);
    const first = await claim();
    expect(first.map((event) => event.seq)).toEqual([1, 2]);
    expect(await claim()).toEqual([]);
    await queue.record([{ kind: 'delivered', eventId: first[0]!.eventId }]);
    expect((await claim()).map((event) => event.seq)).toEqual([3]);
    await queue.record([{ kind: 'release', eventId: first[1]!.eventId }]);
    expect((await claim()).map((event) => event.seq)).toEqual([2]);
  });

  it('frees the slot of an event in flight that was parked or discarded meanwhile', async () => {
    const { queue, claim } = await queueOf(4);
    const [one, two] = await claim();
    await queue.update(one!.eventId, { state: 'parked' });
    await queue.remove([two!.eventId]);
    expect((await claim()).map((event) => event.seq)).toEqual([3, 4]);
    // Answers that arrive afterwards for the parked and the discarded event change no count.
    await queue.record([{ kind: 'release', eventId: one!.eventId }]);
    await queue.record([{ kind: 'release', eventId: two!.eventId }]);
    expect(await claim()).toEqual([]);
  });
});
