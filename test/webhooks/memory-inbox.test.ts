import { LoyaltyValidationError } from 'loyalty-partner-sdk';
import { type InboxKey, memoryInbox } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { manualClock } from './support/clock.js';

const HOUR = 60 * 60 * 1000;
const key = (eventId: string, tenantId = 'merchant-1'): InboxKey => ({ tenantId, eventId, eventType: 'X' });

describe('memoryInbox', () => {
  it('claims an event once: new, then in-progress until completed, then done', () => {
    const inbox = memoryInbox();
    expect(inbox.begin(key('e1'))).toBe('new');
    expect(inbox.begin(key('e1'))).toBe('in-progress');
    inbox.complete(key('e1'));
    expect(inbox.begin(key('e1'))).toBe('done');
  });

  it('forgets a released claim, so the redelivery of a failed event is new again', () => {
    const inbox = memoryInbox();
    inbox.begin(key('e1'));
    inbox.release(key('e1'));
    expect(inbox.begin(key('e1'))).toBe('new');
  });

  it('keys by event id alone: the tenant id never makes an event new', () => {
    const inbox = memoryInbox();
    inbox.begin(key('e1', 'a'));
    expect(inbox.begin(key('e1', 'b'))).toBe('in-progress');
    inbox.complete(key('e1', 'a'));
    expect(inbox.begin(key('e1', 'b'))).toBe('done');
    expect(inbox.begin(key('e1', ''))).toBe('done');
  });

  it('lets a delivery take over a claim older than the lease, so an event is never wedged', () => {
    const time = manualClock();
    const inbox = memoryInbox({ now: time.now, leaseMs: 30_000 });
    expect(inbox.begin(key('stuck'))).toBe('new');
    time.advance(29_999);
    expect(inbox.begin(key('stuck'))).toBe('in-progress');
    time.advance(1);
    expect(inbox.begin(key('stuck'))).toBe('new');
    expect(inbox.begin(key('stuck'))).toBe('in-progress');
    inbox.complete(key('stuck'));
    expect(inbox.begin(key('stuck'))).toBe('done');
  });

  it('holds a claim for one minute by default and says so as leaseMs', () => {
    const time = manualClock();
    const inbox = memoryInbox({ now: time.now });
    expect(inbox.leaseMs).toBe(60_000);
    inbox.begin(key('e1'));
    time.advance(59_999);
    expect(inbox.begin(key('e1'))).toBe('in-progress');
    time.advance(1);
    expect(inbox.begin(key('e1'))).toBe('new');
  });

  it('remembers a handled id for at least 24 hours by default, and forgets it after 25', () => {
    const time = manualClock();
    const inbox = memoryInbox({ now: time.now });
    inbox.begin(key('e1'));
    inbox.complete(key('e1'));
    time.advance(24 * HOUR);
    expect(inbox.begin(key('e1'))).toBe('done');
    time.advance(HOUR);
    expect(inbox.begin(key('e1'))).toBe('new');
  });

  it('counts the ttl from completion, not from the claim', () => {
    const time = manualClock();
    const inbox = memoryInbox({ now: time.now, ttlMs: HOUR });
    inbox.begin(key('slow'));
    time.advance(2 * HOUR);
    inbox.complete(key('slow'));
    time.advance(HOUR - 1);
    expect(inbox.begin(key('slow'))).toBe('done');
  });

  it('forgets the id handled longest ago when maxEntries is reached', () => {
    const inbox = memoryInbox({ maxEntries: 2 });
    for (const id of ['e1', 'e2', 'e3']) {
      inbox.begin(key(id));
      inbox.complete(key(id));
    }
    expect(inbox.begin(key('e2'))).toBe('done');
    expect(inbox.begin(key('e3'))).toBe('done');
    expect(inbox.begin(key('e1'))).toBe('new');
  });

  it('never evicts a claim in progress, so a full inbox cannot let a duplicate run', () => {
    const inbox = memoryInbox({ maxEntries: 1 });
    inbox.begin(key('running'));
    for (const id of ['e1', 'e2', 'e3']) {
      inbox.begin(key(id));
      inbox.complete(key(id));
    }
    expect(inbox.begin(key('running'))).toBe('in-progress');
  });

  it('refuses a ttl, a lease or a bound that is not a positive number', () => {
    for (const options of [
      { leaseMs: 0 },
      { leaseMs: Number.NaN },
      { ttlMs: 0 },
      { ttlMs: Number.POSITIVE_INFINITY },
      { maxEntries: 0 },
      { maxEntries: 1.5 },
    ]) {
      expect(() => memoryInbox(options)).toThrow(LoyaltyValidationError);
    }
    expect(() => memoryInbox({ ttlMs: undefined, leaseMs: undefined })).not.toThrow();
  });
});
