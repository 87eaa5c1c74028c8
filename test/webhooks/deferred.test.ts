import { createReceiver, memoryInbox, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Waits (without timing anything) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('createReceiver({ deferred: true })', () => {
  it('stores a verified delivery, answers 200 stored, and runs its handler once started', async () => {
    const seen: string[] = [];
    const inbox = memoryInbox();
    const receiver = createReceiver({
      secrets: SECRET,
      inbox,
      deferred: true,
      handlers: { LoyaltyRuleChanged: (event, ctx) => void seen.push(`${event.eventId} ${ctx.tenantId}`) },
    });
    receivers.push(receiver);
    const event = outboundEvent('LoyaltyRuleChanged');
    const answer = await receiver.handle(signedDelivery(event));
    expect([answer.status, bodyOf(answer).outcome]).toEqual([200, 'stored']);
    expect(bodyOf(await receiver.handle(signedDelivery(event))).outcome).toBe('duplicate');
    expect(seen).toEqual([]);
    expect(await receiver.stats()).toEqual({ pending: 1, handled: 0, dead: 0, parked: 0 });

    await receiver.start();
    await until(async () => (await receiver.stats()).handled === 1);
    expect(seen).toEqual([`${event.eventId} merchant-1`]);
    const [handled] = await receiver.list({ state: 'handled' });
    expect(handled).toMatchObject({ eventId: event.eventId, state: 'handled', attempts: 1 });
  });

  it('retries a handler that throws, then lists the delivery dead with its last error; replay runs it again', async () => {
    let runs = 0;
    let failing = true;
    const errors: ReceiverFailure[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: memoryInbox(),
      deferred: true,
      retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20 },
      handlers: {
        LoyaltyRuleChanged() {
          runs++;
          if (failing) throw new Error(`database down (run ${runs})`);
        },
      },
      onError: (err) => void errors.push(err),
    });
    receivers.push(receiver);
    await receiver.start();
    const event = outboundEvent('LoyaltyRuleChanged');
    await receiver.handle(signedDelivery(event));
    await until(async () => (await receiver.stats()).dead === 1);
    expect(runs).toBe(3);
    const [dead] = await receiver.list({ state: 'dead' });
    expect(dead).toMatchObject({
      eventId: event.eventId,
      attempts: 3,
      lastError: 'Error: database down (run 3)',
    });
    expect(errors.map((e) => e.code)).toEqual(['HANDLER_FAILED', 'HANDLER_FAILED', 'HANDLER_FAILED']);

    failing = false;
    expect(await receiver.replay(event.eventId)).toBe(true);
    await until(async () => (await receiver.stats()).handled === 1);
    expect(runs).toBe(4);
    expect(await receiver.stats()).toEqual({ pending: 0, handled: 1, dead: 0, parked: 0 });
  });

  it('parks a schemaVersion 2 delivery without running its handler; replay after an upgrade handles it', async () => {
    const inbox = memoryInbox();
    const seen: unknown[] = [];
    const old = createReceiver({
      secrets: SECRET,
      inbox,
      deferred: true,
      handlers: { LoyaltyRuleChanged: (event) => void seen.push(event) },
    });
    receivers.push(old);
    await old.start();
    const v2 = { ...outboundEvent('LoyaltyRuleChanged'), schemaVersion: 2 };
    const answer = await old.handle(signedDelivery(v2));
    expect([answer.status, bodyOf(answer).outcome]).toEqual([200, 'stored']);
    const [parked] = await old.list({ state: 'parked' });
    expect(parked).toMatchObject({ eventId: v2.eventId, state: 'parked' });
    expect(parked?.lastError).toContain('schemaVersion 2');
    expect(seen).toEqual([]);
    await old.close();

    // "The upgrade": a receiver whose onUnhandled takes what the old one parked.
    const upgraded = createReceiver({
      secrets: SECRET,
      inbox,
      deferred: true,
      handlers: {},
      onUnhandled: (event) => void seen.push(event.schemaVersion),
    });
    receivers.push(upgraded);
    await upgraded.start();
    expect(await upgraded.replay(v2.eventId)).toBe(true);
    await until(async () => (await upgraded.stats()).handled === 1);
    expect(seen).toEqual([2]);
  });

  it('discards a dead delivery: never handled, and a redelivery is still a duplicate', async () => {
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: memoryInbox(),
      deferred: true,
      retry: { maxAttempts: 1 },
      handlers: {
        LoyaltyRuleChanged() {
          throw new Error('bug');
        },
      },
    });
    receivers.push(receiver);
    await receiver.start();
    const event = outboundEvent('LoyaltyRuleChanged');
    await receiver.handle(signedDelivery(event));
    await until(async () => (await receiver.stats()).dead === 1);
    expect(await receiver.discard(event.eventId)).toBe(true);
    expect((await receiver.stats()).dead).toBe(0);
    expect(await receiver.replay(event.eventId)).toBe(false);
    expect(bodyOf(await receiver.handle(signedDelivery(event))).outcome).toBe('duplicate');
  });

  it('refuses deferred: true without an inbox, and a retry that is not a number', () => {
    expect(() => createReceiver({ secrets: SECRET, handlers: {}, deferred: true })).toThrow(/inbox/);
    expect(() =>
      createReceiver({
        secrets: SECRET,
        handlers: {},
        inbox: memoryInbox(),
        deferred: true,
        retry: { maxAttempts: 0 },
      }),
    ).toThrow(/retry.maxAttempts/);
  });
});

describe('without deferred', () => {
  it('answers 503 SCHEMA_VERSION_UNSUPPORTED for a schemaVersion 2 delivery that no onUnhandled takes', async () => {
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: { LoyaltyRuleChanged: () => void runs++ },
    });
    const v2 = { ...outboundEvent('LoyaltyRuleChanged'), schemaVersion: 2 };
    const answer = await receiver.handle(signedDelivery(v2));
    expect([answer.status, bodyOf(answer).code]).toEqual([503, 'SCHEMA_VERSION_UNSUPPORTED']);
    expect(runs).toBe(0);
  });
});
