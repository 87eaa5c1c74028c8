import { memoryStore } from 'loyalty-partner-sdk/outbox';
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

  it('leaves a due event to the answer of an earlier one while something is in flight', async () => {
    const { queue, advance } = await queueWithRetry();
    advance(6);
    expect(queue.nextDueIn(new Set(), false)).toBeUndefined();
  });
});
