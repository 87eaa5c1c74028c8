import { createReceiver, memoryInbox, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { manualClock } from './support/clock.js';
import { outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';
import { serveOverHttp } from './support/over-http.js';

const never = () => new Promise<never>(() => {});

/** Resolves once `check` holds, polling each tick (no timing assumption in the test itself). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe('bounded waits on user code, over HTTP', () => {
  it('answers 503 SECRETS_UNAVAILABLE, and tells onError, when the secrets resolver never settles', async () => {
    const failures: ReceiverFailure[] = [];
    const receiver = createReceiver({
      secrets: never,
      resolverTimeoutMs: 50,
      handlers: {},
      onError: (err) => void failures.push(err),
    });
    const server = await serveOverHttp(receiver);
    try {
      const answer = await server.post(signedDelivery(outboundEvent('IntegrationStatusChanged')));
      expect(answer).toMatchObject({ status: 503, body: { code: 'SECRETS_UNAVAILABLE' } });
      expect(failures.map((err) => [err.code, err.message])).toEqual([
        ['SECRETS_UNAVAILABLE', 'The secrets resolver did not answer within resolverTimeoutMs (50 ms)'],
      ]);
    } finally {
      await server.close();
    }
  });

  it('answers 503 HANDLER_TIMEOUT to a handler that never settles, keeps its claim, and lets a redelivery take over after the lease', async () => {
    const time = manualClock();
    const failures: ReceiverFailure[] = [];
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      inbox: memoryInbox({ now: time.now, leaseMs: 60_000 }),
      handlerTimeoutMs: 50,
      handlers: { IntegrationStatusChanged: () => (++runs === 1 ? never() : undefined) },
      onError: (err) => void failures.push(err),
    });
    const server = await serveOverHttp(receiver);
    try {
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const first = await server.post(delivery);
      expect(first).toMatchObject({ status: 503, body: { code: 'HANDLER_TIMEOUT' } });
      expect(failures.map((err) => err.code)).toEqual(['HANDLER_TIMEOUT']);

      // The first run may still be going: an immediate redelivery must not run it concurrently.
      expect(await server.post(delivery)).toMatchObject({ status: 503, body: { code: 'EVENT_IN_PROGRESS' } });
      expect(runs).toBe(1);

      // Not wedged: once the lease has passed, the redelivery takes the claim over.
      time.advance(60_000);
      expect(await server.post(delivery)).toMatchObject({ status: 200, body: { outcome: 'handled' } });
      expect(await server.post(delivery)).toMatchObject({ status: 200, body: { outcome: 'duplicate' } });
      expect(runs).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('records a handler that finishes after its timeout as done, so the redelivery is a duplicate', async () => {
    let finish = () => {};
    let runs = 0;
    let recorded = false;
    const inner = memoryInbox();
    const receiver = createReceiver({
      secrets: SECRET,
      handlerTimeoutMs: 50,
      inbox: {
        ...inner,
        complete(key) {
          inner.complete(key);
          recorded = true;
        },
      },
      handlers: {
        IntegrationStatusChanged: () => {
          runs++;
          return new Promise<void>((resolve) => {
            finish = resolve;
          });
        },
      },
    });
    const server = await serveOverHttp(receiver);
    try {
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      expect((await server.post(delivery)).status).toBe(503);
      finish();
      await until(() => recorded);
      expect(await server.post(delivery)).toMatchObject({ status: 200, body: { outcome: 'duplicate' } });
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });

  it('reports a handler that fails after its timeout to onError, and keeps the claim to the lease', async () => {
    let fail = (_error: Error) => {};
    const failures: ReceiverFailure[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      handlerTimeoutMs: 50,
      handlers: {
        IntegrationStatusChanged: () =>
          new Promise<void>((_resolve, reject) => {
            fail = reject;
          }),
      },
      onError: (err) => void failures.push(err),
    });
    const server = await serveOverHttp(receiver);
    try {
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      expect((await server.post(delivery)).status).toBe(503);
      fail(new Error('late crash'));
      await until(() => failures.length === 2);
      expect(failures.map((err) => err.code)).toEqual(['HANDLER_TIMEOUT', 'HANDLER_FAILED']);
      expect(failures[1]?.cause).toEqual(new Error('late crash'));
      expect(await server.post(delivery)).toMatchObject({ status: 503, body: { code: 'EVENT_IN_PROGRESS' } });
    } finally {
      await server.close();
    }
  });

  it('bounds a transactional inbox too: 503 HANDLER_TIMEOUT while the transaction is still open', async () => {
    const failures: ReceiverFailure[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      handlerTimeoutMs: 50,
      inbox: {
        begin: () => 'new',
        complete() {},
        release() {},
        transaction: async (_key, work: (tx: { open: true }) => Promise<void>) => {
          await work({ open: true });
          return 'new';
        },
      },
      handlers: { IntegrationStatusChanged: never },
      onError: (err) => void failures.push(err),
    });
    const server = await serveOverHttp(receiver);
    try {
      const answer = await server.post(signedDelivery(outboundEvent('IntegrationStatusChanged')));
      expect(answer).toMatchObject({ status: 503, body: { code: 'HANDLER_TIMEOUT' } });
      expect(failures.map((err) => err.code)).toEqual(['HANDLER_TIMEOUT']);
    } finally {
      await server.close();
    }
  });
});
