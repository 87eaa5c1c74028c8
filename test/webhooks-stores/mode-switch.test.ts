import { createReceiver, type DeferredInboxStore, type Receiver } from 'loyalty-partner-sdk/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { STORES } from './stores.js';

/*
 * Issue 39, must show 1: one record per event id whatever the mode, through real receivers on
 * every store (memory, Postgres on pg and postgres.js, plain and transactional).
 */

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; !(await check()); i++) {
    if (i > 3_000) throw new Error('condition never met');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Sends every delivery, 20 at a time, and answers the outcomes in order. */
async function sendAll(receiver: Receiver, events: readonly { eventId: string }[]): Promise<string[]> {
  const outcomes: string[] = [];
  for (let i = 0; i < events.length; i += 20) {
    const answers = await Promise.all(
      events.slice(i, i + 20).map((event) => receiver.handle(signedDelivery(event))),
    );
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      outcomes.push(String(bodyOf(answer).outcome));
    }
  }
  return outcomes;
}

const events = (n: number) => Array.from({ length: n }, () => outboundEvent('LoyaltyRuleChanged'));

for (const entry of STORES) {
  describe(`${entry.name}: switching a receiver between immediate and deferred handling`, () => {
    let built: Awaited<ReturnType<(typeof STORES)[number]['setUp']>>;
    beforeAll(async () => {
      built = await entry.setUp();
    });
    afterAll(() => built?.close());

    /** A receiver on `inbox` that counts the runs of each event id in `runs`. */
    const receiverOn = (inbox: DeferredInboxStore<unknown>, runs: Map<string, number>, deferred: boolean) =>
      createReceiver({
        secrets: SECRET,
        inbox,
        deferred,
        handlers: {
          LoyaltyRuleChanged(event) {
            runs.set(event.eventId, (runs.get(event.eventId) ?? 0) + 1);
          },
        },
      });

    it('200 handled immediately, then the same 200 and 100 new to a deferred receiver: only the 100 run', async () => {
      const inbox = built.make({ leaseMs: 60_000 });
      const [first, fresh] = [events(200), events(100)];
      const immediateRuns = new Map<string, number>();
      const immediate = receiverOn(inbox, immediateRuns, false);
      expect(new Set(await sendAll(immediate, first))).toEqual(new Set(['handled']));

      const deferredRuns = new Map<string, number>();
      const deferred = receiverOn(inbox, deferredRuns, true);
      const outcomes = await sendAll(deferred, [...first, ...fresh]);
      expect(outcomes.slice(0, 200)).toEqual(Array(200).fill('duplicate'));
      expect(outcomes.slice(200)).toEqual(Array(100).fill('stored'));
      await deferred.start();
      await until(async () => fresh.every((e) => deferredRuns.has(e.eventId)));
      await deferred.close();

      expect(first.every((e) => immediateRuns.get(e.eventId) === 1)).toBe(true);
      expect(first.some((e) => deferredRuns.has(e.eventId))).toBe(false);
      expect(fresh.every((e) => deferredRuns.get(e.eventId) === 1)).toBe(true);
    });

    it('50 stored with no worker, the same 50 to an immediate receiver, then a worker: each handled once in all', async () => {
      const inbox = built.make({ leaseMs: 60_000 });
      const fifty = events(50);
      const runs = new Map<string, number>();
      const storing = receiverOn(inbox, runs, true);
      expect(await sendAll(storing, fifty)).toEqual(Array(50).fill('stored'));
      expect(runs.size).toBe(0);

      const immediate = receiverOn(inbox, runs, false);
      expect(await sendAll(immediate, fifty)).toEqual(Array(50).fill('handled'));

      const worker = receiverOn(inbox, runs, true);
      await worker.start();
      // A delivery stored after the start: once it ran, the worker has claimed after the 50.
      const [sentinel] = events(1);
      expect(await sendAll(worker, [sentinel!])).toEqual(['stored']);
      await until(async () => runs.has(sentinel!.eventId));
      const ours = new Set(fifty.map((e) => e.eventId));
      await worker.close();
      expect(fifty.map((e) => runs.get(e.eventId))).toEqual(Array(50).fill(1));
      const handled = await inbox.list({ state: 'handled', limit: 100_000 });
      expect(handled.filter((r) => ours.has(r.eventId))).toHaveLength(50);
    });
  });
}
