import type { RedisLike } from 'loyalty-partner-sdk/redis';
import { redisInbox } from 'loyalty-partner-sdk/redis';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import { afterEach, expect, it } from 'vitest';
import { uniqueName } from '../support/servers.js';
import {
  bodyOf,
  outboundEvent,
  SECRET,
  type SignedDelivery,
  signedDelivery,
} from '../webhooks/support/deliveries.js';

/**
 * A receiver on `redisInbox` as users run it, through `createReceiver`: two processes (two
 * stores on one prefix) in each mode, and the switch between modes on one prefix (issue 39).
 * Run on a standalone Redis and on a Cluster, with each client (stores.test.ts, cluster.test.ts).
 */
export function receiverScenarios(client: () => RedisLike): void {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((receiver) => receiver.close()));
  });
  const until = async (check: () => Promise<boolean>) => {
    const deadline = Date.now() + 30_000;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not met within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** A receiver on its own store (as another process would have), counting runs per event id. */
  const receiverOn = (prefix: string, deferred: boolean, runs: Map<string, number>) => {
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: redisInbox(client(), { prefix }),
      deferred,
      handlers: {
        async LoyaltyRuleChanged(event) {
          runs.set(event.eventId, (runs.get(event.eventId) ?? 0) + 1);
        },
      },
    });
    open.push(receiver);
    return receiver;
  };
  /**
   * The delivery sent until it is answered other than 503, as the service redelivers: on a loaded
   * machine a store command can outlast its timeout among hundreds sent at once, and the receiver
   * then answers 503 (the store failed), which is right, and not what these tests are about.
   */
  const answered = async (receiver: ReturnType<typeof receiverOn>, delivery: SignedDelivery) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = await receiver.handle(delivery);
      if (answer.status !== 503 || Date.now() > deadline) return answer;
    }
  };
  const events = (n: number) =>
    Array.from({ length: n }, () => signedDelivery(outboundEvent('LoyaltyRuleChanged')));
  const idOf = (delivery: { rawBody: string }) =>
    (JSON.parse(delivery.rawBody) as { eventId: string }).eventId;

  /** Two receivers on a new prefix, each sent all of 60 deliveries at once. */
  const sentToTwo = async (name: string, deferred: boolean) => {
    const prefix = `${uniqueName(name)}:`;
    const runs = new Map<string, number>();
    const [a, b] = [receiverOn(prefix, deferred, runs), receiverOn(prefix, deferred, runs)];
    const sent = events(60);
    const answers = await Promise.all(
      sent.flatMap((d) => (deferred ? [answered(a, d), answered(b, d)] : [a.handle(d), b.handle(d)])),
    );
    return { a, b, runs, sent, answers };
  };

  it('immediate, two processes, every delivery sent to both at once: each handled once, all answered 200', async () => {
    const { a, runs, sent, answers } = await sentToTwo('imm', false);
    // A copy that met the other one running is answered 503 (the service sends it again).
    for (const d of sent) {
      const again = await a.handle(d);
      expect(again.status).toBe(200);
    }
    expect(answers.every((answer) => answer.status === 200 || answer.status === 503)).toBe(true);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(runs.size).toBe(60);
  });

  it('deferred, two processes storing and two workers: each delivery handled once, none left pending', async () => {
    const { a, b, runs, answers } = await sentToTwo('def', true);
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await Promise.all([a.start(), b.start()]);
    await until(async () => (await a.stats()).handled === 60);
    expect(await a.stats()).toEqual({ pending: 0, handled: 60, dead: 0, parked: 0 });
    expect(runs.size).toBe(60);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });

  it('switching modes on one prefix never runs a handled event again, nor loses a stored one', async () => {
    const prefix = `${uniqueName('switch')}:`;
    const runs = new Map<string, number>();
    // 200 handled immediately; then the same 200 and 100 new to a deferred receiver: only the 100 run.
    const first = events(200);
    const immediate = receiverOn(prefix, false, runs);
    for (const d of first) expect((await immediate.handle(d)).status).toBe(200);
    const deferred = receiverOn(prefix, true, runs);
    const fresh = events(100);
    const outcomes = await Promise.all(
      [...first, ...fresh].map(async (d) => bodyOf(await answered(deferred, d)).outcome),
    );
    expect(outcomes.filter((o) => o === 'duplicate')).toHaveLength(200);
    expect(outcomes.filter((o) => o === 'stored')).toHaveLength(100);
    await deferred.start();
    await until(async () => (await deferred.stats()).handled === 100);
    expect(runs.size).toBe(300);

    // 50 stored with no worker running, the same 50 to an immediate receiver, then a worker.
    const stored = events(50);
    const idle = receiverOn(prefix, true, runs);
    await deferred.close();
    for (const d of stored) expect(bodyOf(await idle.handle(d)).outcome).toBe('stored');
    for (const d of stored) expect((await immediate.handle(d)).status).toBe(200);
    expect(stored.every((d) => runs.get(idOf(d)) === 1)).toBe(true);
    const worker = receiverOn(prefix, true, runs);
    await worker.start();
    await until(async () => (await worker.stats()).handled === 150);
    expect(await worker.stats()).toEqual({ pending: 0, handled: 150, dead: 0, parked: 0 });
    expect(runs.size).toBe(350);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });
}
