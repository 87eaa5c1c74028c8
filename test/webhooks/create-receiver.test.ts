import {
  createReceiver,
  type DeliveryContext,
  type Envelope,
  type ReceiverOptions,
  type UnhandledEvent,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  outboundEvent,
  resolveSecrets,
  SECRET,
  SECRETS,
  signedDelivery,
} from './support/deliveries.js';

type UnhandledContext = Parameters<NonNullable<ReceiverOptions['onUnhandled']>>[1];

describe('createReceiver().handle', () => {
  it('runs the handler of the event type with the whole envelope and the delivery context', async () => {
    const seen: { event: Envelope<'LoyaltyRuleChanged'>; ctx: DeliveryContext }[] = [];
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: { LoyaltyRuleChanged: (event, ctx) => void seen.push({ event, ctx }) },
    });
    const event = outboundEvent('LoyaltyRuleChanged');
    const timestamp = Math.floor(Date.now() / 1000) - 5;
    const correlationId = '0b9d7a52-6a43-4a3c-9a5e-2f6f1b1c0d11';
    const answer = await receiver.handle(
      signedDelivery(event, { secret: SECRETS['merchant-1'][1], timestamp, correlationId }),
    );

    expect(answer.status).toBe(200);
    expect(answer.headers).toEqual({ 'content-type': 'application/json', 'x-correlation-id': correlationId });
    expect(bodyOf(answer)).toEqual({ outcome: 'handled', eventId: event.eventId, correlationId });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.event).toEqual(event);
    expect(seen[0]?.ctx).toEqual({
      tenantId: 'merchant-1',
      correlationId,
      signatureTimestamp: timestamp,
      receivedAt: expect.any(Date),
      secretIndex: 1,
    });
  });

  it('waits for an async handler before answering', async () => {
    const order: string[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: {
        async IntegrationStatusChanged() {
          await new Promise((resolve) => setImmediate(resolve));
          order.push('handler done');
        },
      },
    });
    await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
    order.push('answered');
    expect(order).toEqual(['handler done', 'answered']);
  });

  it('answers a redelivery of a handled eventId 200 without running the handler again', async () => {
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: { IntegrationStatusChanged: () => void runs++ },
    });
    const event = outboundEvent('IntegrationStatusChanged');
    const first = await receiver.handle(signedDelivery(event));
    const again = await receiver.handle(
      signedDelivery(event, { timestamp: Math.floor(Date.now() / 1000) + 1 }),
    );
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(bodyOf(again)).toMatchObject({ outcome: 'duplicate', eventId: event.eventId });
    expect(runs).toBe(1);
  });

  it('answers 503 EVENT_IN_PROGRESS to a copy that arrives while the first is still running', async () => {
    let release = () => {};
    let entered = () => {};
    const running = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: {
        IntegrationStatusChanged: () => {
          runs++;
          entered();
          return new Promise<void>((resolve) => {
            release = resolve;
          });
        },
      },
    });
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
    const first = receiver.handle(delivery);
    await running;
    const copy = await receiver.handle(delivery);
    expect(copy.status).toBe(503);
    expect(bodyOf(copy)).toMatchObject({ code: 'EVENT_IN_PROGRESS' });
    release();
    expect((await first).status).toBe(200);
    expect(runs).toBe(1);
  });

  it('answers 500 HANDLER_FAILED when the handler throws, and runs it again on redelivery', async () => {
    let runs = 0;
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: {
        RedemptionExpiredOrCancelled: async () => {
          runs++;
          if (runs === 1) throw new Error('database down');
        },
      },
    });
    const delivery = signedDelivery(outboundEvent('RedemptionExpiredOrCancelled'));
    const failed = await receiver.handle(delivery);
    expect(failed.status).toBe(500);
    expect(bodyOf(failed)).toMatchObject({ code: 'HANDLER_FAILED' });
    expect(failed.body).not.toContain('database down');
    expect((await receiver.handle(delivery)).status).toBe(200);
    expect(bodyOf(await receiver.handle(delivery)).outcome).toBe('duplicate');
    expect(runs).toBe(2);
  });

  describe('events this receiver has no handler for', () => {
    const unhandled = () => {
      const seen: { event: UnhandledEvent; ctx: UnhandledContext }[] = [];
      const receiver = createReceiver({
        secrets: SECRET,
        handlers: { LoyaltyRuleChanged: () => {} },
        onUnhandled: (event, ctx) => void seen.push({ event, ctx }),
      });
      return { receiver, seen };
    };

    it('passes an event type unknown to this version to onUnhandled and answers 200', async () => {
      const { receiver, seen } = unhandled();
      const future = {
        ...outboundEvent('IntegrationStatusChanged'),
        eventType: 'PointsExpired',
        payload: { n: 1 },
      };
      const answer = await receiver.handle(signedDelivery(future));
      expect(answer.status).toBe(200);
      expect(bodyOf(answer).outcome).toBe('unhandled');
      expect(seen[0]?.event).toMatchObject({ eventType: 'PointsExpired', payload: { n: 1 } });
      expect(seen[0]?.ctx.reason).toBe('unknown-event-type');
    });

    it('treats a known type with a schemaVersion other than 1 as unknown to this version', async () => {
      const { receiver, seen } = unhandled();
      const v2 = { ...outboundEvent('LoyaltyRuleChanged'), schemaVersion: 2, payload: { rules: [] } };
      const answer = await receiver.handle(signedDelivery(v2));
      expect(answer.status).toBe(200);
      expect(seen[0]?.ctx.reason).toBe('unsupported-schema-version');
    });

    it('passes a known type without a handler to onUnhandled, once per eventId', async () => {
      const { receiver, seen } = unhandled();
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      await receiver.handle(delivery);
      expect(bodyOf(await receiver.handle(delivery)).outcome).toBe('duplicate');
      expect(seen.map(({ ctx }) => ctx.reason)).toEqual(['no-handler']);
    });

    it('answers 500 HANDLER_FAILED when onUnhandled throws', async () => {
      const receiver = createReceiver({
        secrets: SECRET,
        handlers: {},
        onUnhandled: () => {
          throw new Error('queue full');
        },
      });
      const answer = await receiver.handle(signedDelivery(outboundEvent('IntegrationStatusChanged')));
      expect([answer.status, bodyOf(answer).code]).toEqual([500, 'HANDLER_FAILED']);
    });

    it('acknowledges with 200 when there is no onUnhandled', async () => {
      const receiver = createReceiver({ secrets: SECRET, handlers: {} });
      const answer = await receiver.handle(signedDelivery(outboundEvent('RefundReversalCompleted')));
      expect([answer.status, bodyOf(answer).outcome]).toEqual([200, 'unhandled']);
    });
  });

  it('never rejects: a delivery that is not an object is answered 500 RECEIVER_FAILED', async () => {
    const receiver = createReceiver({ secrets: SECRET, handlers: {} });
    const answer = await receiver.handle(undefined as never);
    expect([answer.status, bodyOf(answer).code]).toEqual([500, 'RECEIVER_FAILED']);
  });
});
