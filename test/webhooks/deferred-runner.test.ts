import {
  createReceiver,
  type DeferredInboxStore,
  type DeliveryFailure,
  LoyaltyValidationError,
  memoryInbox,
} from 'loyalty-partner-sdk/webhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

const receivers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

/** Waits (without timing anything) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

/**
 * A memory inbox that says it is transactional (`runHandled`) on a pool of `poolSize`
 * connections, as `postgresInbox(pool, { transactional: true })` does.
 */
function transactionalInbox(poolSize: number): DeferredInboxStore {
  const inbox = memoryInbox();
  return Object.assign(Object.create(inbox) as DeferredInboxStore, {
    poolSize,
    async runHandled(
      claim: Parameters<DeferredInboxStore['markHandled']>[0],
      work: (tx: undefined) => Promise<void>,
    ) {
      await work(undefined);
      return inbox.markHandled(claim);
    },
  });
}

/**
 * Sends `count` deliveries to a receiver whose handlers wait until `expected` of them run, then
 * checks that no more were claimed, lets them end, and returns the most that ran at once.
 */
async function peakOfHandlers(
  options: { inbox: DeferredInboxStore; concurrency?: number },
  expected: number,
) {
  const count = 12;
  let running = 0;
  let peak = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const receiver = createReceiver({
    secrets: SECRET,
    deferred: true,
    ...options,
    handlers: {
      async LoyaltyRuleChanged() {
        running++;
        peak = Math.max(peak, running);
        await released;
        running--;
      },
    },
  });
  receivers.push(receiver);
  for (let k = 0; k < count; k++) await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
  await receiver.start();
  await until(() => running === expected);
  // Claimed (one attempt counted) are the running ones only; the others wait for a free slot.
  const pending = await options.inbox.list({ state: 'pending' });
  expect(pending.filter((d) => d.attempts > 0)).toHaveLength(expected);
  release();
  await until(async () => (await receiver.stats()).handled === count);
  return peak;
}

describe('the deferred runner', () => {
  it('runs at most `concurrency` handlers at once', async () => {
    expect(await peakOfHandlers({ inbox: memoryInbox(), concurrency: 3 }, 3)).toBe(3);
  });

  it('runs at most a quarter of a transactional inbox pool at once by default, leaving the rest to receipts', async () => {
    expect(await peakOfHandlers({ inbox: transactionalInbox(8) }, 2)).toBe(2);
    expect(await peakOfHandlers({ inbox: transactionalInbox(3) }, 1)).toBe(1);
  });

  it('refuses a concurrency that is not a whole number of handlers from 1 to 1000', () => {
    for (const concurrency of [0, 1.5, 1_001, Number.NaN]) {
      const create = () =>
        createReceiver({ secrets: SECRET, handlers: {}, inbox: memoryInbox(), deferred: true, concurrency });
      expect(create).toThrow(LoyaltyValidationError);
      expect(create).toThrow(/concurrency: must be a whole number of handlers from 1 to 1000/);
    }
  });

  it('asks the store to retry a failed run after a wait, never at a time read from its own clock', async () => {
    const inbox = memoryInbox();
    const failures: DeliveryFailure[] = [];
    const recording = Object.assign(Object.create(inbox) as DeferredInboxStore, {
      markFailed(claim: Parameters<DeferredInboxStore['markFailed']>[0], failure: DeliveryFailure) {
        failures.push(failure);
        return inbox.markFailed(claim, failure);
      },
    });
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: recording,
      deferred: true,
      retry: { maxAttempts: 2, baseDelayMs: 40, maxDelayMs: 40 },
      handlers: {
        LoyaltyRuleChanged() {
          throw new Error('database down');
        },
      },
    });
    receivers.push(receiver);
    await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
    await receiver.start();
    await until(async () => (await receiver.stats()).dead === 1);
    expect(failures).toHaveLength(2);
    expect(Object.keys(failures[0]!).sort()).toEqual(['error', 'retryInMs']);
    expect(failures[0]!.retryInMs).toBeGreaterThanOrEqual(0);
    expect(failures[0]!.retryInMs).toBeLessThan(40);
    // The last run: no retry, the delivery is dead.
    expect(failures[1]!.retryInMs).toBeUndefined();
  });

  it('loads the runner only when started: a receiver that never starts runs nothing', async () => {
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: memoryInbox(),
      deferred: true,
      handlers: { LoyaltyRuleChanged: () => void runs++ },
    });
    receivers.push(receiver);
    await receiver.handle(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
    await receiver.close();
    await receiver.start();
    expect(await receiver.stats()).toMatchObject({ pending: 1, handled: 0 });
    expect(runs).toBe(0);
  });
});
