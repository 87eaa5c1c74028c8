import {
  createReceiver,
  type InboxKey,
  type InboxStore,
  type ReceiverFailure,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';

/** The transaction a fake database hands out: rows written through it commit or roll back together. */
interface FakeTx {
  rows: string[];
}

/**
 * A transactional inbox in memory, behaving as a database one: the claim, the work and the
 * "done" mark commit together; a failing `work` rolls back and leaves no claim. `fail` makes the
 * store itself fail before or after the work.
 */
function fakeTransactionalInbox(fail: { before?: Error; atCommit?: Error } = {}) {
  const committed: string[] = [];
  const done = new Set<string>();
  const locked = new Set<string>();
  const plainCalls: string[] = [];
  const plain = (name: string) => () => {
    plainCalls.push(name);
    throw new Error(`${name} must not be called on a transactional inbox`);
  };
  const inbox: InboxStore<FakeTx> = {
    begin: plain('begin'),
    complete: plain('complete'),
    release: plain('release'),
    async transaction(
      key: InboxKey,
      work: (tx: FakeTx) => Promise<void>,
    ): Promise<'new' | 'done' | 'in-progress'> {
      if (fail.before) throw fail.before;
      if (done.has(key.eventId)) return 'done';
      if (locked.has(key.eventId)) return 'in-progress';
      locked.add(key.eventId);
      const tx: FakeTx = { rows: [] };
      try {
        await work(tx);
        if (fail.atCommit) throw fail.atCommit;
        committed.push(...tx.rows);
        done.add(key.eventId);
        return 'new';
      } finally {
        locked.delete(key.eventId);
      }
    },
  };
  return { inbox, committed, plainCalls, lock: (eventId: string) => locked.add(eventId) };
}

function receiverOn(inbox: InboxStore<FakeTx>, handler: (tx: FakeTx) => unknown) {
  const failures: ReceiverFailure[] = [];
  const receiver = createReceiver({
    secrets: SECRET,
    inbox,
    handlers: {
      RedemptionExpiredOrCancelled: (event, ctx) => handler(ctx.tx) ?? void ctx.tx.rows.push(event.eventId),
    },
    onError: (err) => void failures.push(err),
  });
  return { receiver, failures };
}

describe('a receiver on a transactional inbox', () => {
  it('runs the handler inside the inbox transaction, as ctx.tx, and commits its rows with the claim', async () => {
    const store = fakeTransactionalInbox();
    const seen: FakeTx[] = [];
    const { receiver } = receiverOn(store.inbox, (tx) => void seen.push(tx));
    const event = outboundEvent('RedemptionExpiredOrCancelled');
    const answer = await receiver.handle(signedDelivery(event));
    expect(answer.status).toBe(200);
    expect(bodyOf(answer)).toMatchObject({ outcome: 'handled', eventId: event.eventId });
    expect(seen).toHaveLength(1);
    expect(store.committed).toEqual([event.eventId]);
    const again = await receiver.handle(signedDelivery(event));
    expect(bodyOf(again)).toMatchObject({ outcome: 'duplicate' });
    expect(seen).toHaveLength(1);
    expect(store.plainCalls).toEqual([]);
  });

  it('answers 500 HANDLER_FAILED when the handler throws; the rollback left no claim, so the redelivery runs it', async () => {
    const store = fakeTransactionalInbox();
    let runs = 0;
    const { receiver, failures } = receiverOn(store.inbox, (tx) => {
      runs++;
      tx.rows.push('half-written');
      if (runs === 1) throw new Error('constraint violated');
      return undefined;
    });
    const delivery = signedDelivery(outboundEvent('RedemptionExpiredOrCancelled'));
    const failed = await receiver.handle(delivery);
    expect(failed.status).toBe(500);
    expect(bodyOf(failed)).toMatchObject({ code: 'HANDLER_FAILED' });
    expect(failures.map((err) => err.code)).toEqual(['HANDLER_FAILED']);
    expect((failures[0] as Error).cause).toEqual(new Error('constraint violated'));
    expect(store.committed).toEqual([]);
    expect((await receiver.handle(delivery)).status).toBe(200);
    expect(runs).toBe(2);
    expect(store.committed).toEqual(['half-written', expect.any(String)]);
  });

  it('answers 503 INBOX_UNAVAILABLE when the store fails before the handler, without running it', async () => {
    const store = fakeTransactionalInbox({ before: new Error('connection refused') });
    let runs = 0;
    const { receiver, failures } = receiverOn(store.inbox, () => void runs++);
    const answer = await receiver.handle(signedDelivery(outboundEvent('RedemptionExpiredOrCancelled')));
    expect(answer.status).toBe(503);
    expect(bodyOf(answer)).toMatchObject({ code: 'INBOX_UNAVAILABLE' });
    expect(failures.map((err) => err.code)).toEqual(['INBOX_UNAVAILABLE']);
    expect(runs).toBe(0);
  });

  it('answers 503 INBOX_UNAVAILABLE, not HANDLER_FAILED, when the handler succeeded but the commit failed', async () => {
    const store = fakeTransactionalInbox({ atCommit: new Error('serialization failure') });
    const { receiver, failures } = receiverOn(store.inbox, () => undefined);
    const answer = await receiver.handle(signedDelivery(outboundEvent('RedemptionExpiredOrCancelled')));
    expect(answer.status).toBe(503);
    expect(bodyOf(answer)).toMatchObject({ code: 'INBOX_UNAVAILABLE' });
    expect(failures.map((err) => err.code)).toEqual(['INBOX_UNAVAILABLE']);
    expect(store.committed).toEqual([]);
  });

  it('answers 503 EVENT_IN_PROGRESS without running the handler when the store says another copy holds it', async () => {
    const store = fakeTransactionalInbox();
    let runs = 0;
    const { receiver } = receiverOn(store.inbox, () => void runs++);
    const event = outboundEvent('RedemptionExpiredOrCancelled');
    store.lock(event.eventId);
    const answer = await receiver.handle(signedDelivery(event));
    expect(answer.status).toBe(503);
    expect(bodyOf(answer)).toMatchObject({ code: 'EVENT_IN_PROGRESS' });
    expect(runs).toBe(0);
  });

  it('gives onUnhandled the transaction too', async () => {
    const store = fakeTransactionalInbox();
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: store.inbox,
      handlers: {},
      onUnhandled: (event, ctx) => void ctx.tx.rows.push(`parked ${event.eventType}`),
    });
    const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    expect(bodyOf(answer)).toMatchObject({ outcome: 'unhandled' });
    expect(store.committed).toEqual(['parked IntegrationStatusChanged']);
  });
});
