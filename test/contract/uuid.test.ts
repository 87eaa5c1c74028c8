import { createEnvelope, newEventId } from 'loyalty-partner-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => {
  vi.useRealTimers();
});

describe('event ids (UUID version 7)', () => {
  it('carry the time in their first 48 bits, and sort in creation order within one millisecond', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => newEventId());
    for (const id of ids) expect(id).toMatch(V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    const ms = Number.parseInt(ids[0]!.replace(/-/g, '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
  });

  it('keep creation order when the clock steps back', () => {
    // Stepped back from the real time, not forward to a fixed future one: the module remembers
    // the latest time it stamped, and the tests that run after this one in the same worker
    // check that their ids carry the real time.
    const later = newEventId();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() - 365 * 24 * 60 * 60 * 1000 });
    expect(newEventId() > later).toBe(true);
  });

  it('are what createEnvelope gives an event that names none', () => {
    const envelope = createEnvelope('BranchSynced', {
      externalBranchId: 'b-1',
      name: 'Olaya',
      isActive: true,
    });
    expect(envelope.eventId).toMatch(V7);
  });
});
