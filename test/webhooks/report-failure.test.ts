import { signPayload } from 'loyalty-partner-sdk/signature';
import { createReceiver, type ErrorContext, type ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import {
  ALL_SECRETS,
  bodyOf,
  now,
  outboundEvent,
  resolveSecrets,
  SECRET,
  type SignedDelivery,
  signedDelivery,
} from './support/deliveries.js';

const event = () => outboundEvent('IntegrationStatusChanged');

describe('onError', () => {
  it('is told about every refusal and failure, with the status answered', async () => {
    const told: [ReceiverFailure['code'], ErrorContext][] = [];
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: {
        IntegrationStatusChanged: () => {
          throw new Error('boom');
        },
      },
      onError: (err, ctx) => void told.push([err.code, ctx]),
    });
    const delivered = event();
    await receiver.handle(signedDelivery(event(), { signature: null }));
    await receiver.handle(signedDelivery(event(), { timestamp: now() - 900 }));
    await receiver.handle(signedDelivery('not json'));
    await receiver.handle(signedDelivery(delivered, { correlationId: 'corr-42' }));

    expect(told.map(([code, ctx]) => [code, ctx.status])).toEqual([
      ['INVALID_SIGNATURE', 401],
      ['SIGNATURE_EXPIRED', 401],
      ['INVALID_PAYLOAD', 400],
      ['HANDLER_FAILED', 500],
    ]);
    expect(told[3]?.[1]).toEqual({
      tenantId: 'merchant-1',
      correlationId: 'corr-42',
      receivedAt: expect.any(Date),
      status: 500,
      eventId: delivered.eventId,
      eventType: 'IntegrationStatusChanged',
    });
  });

  it('is not told about a duplicate or a copy in progress: those are not failures', async () => {
    const told: string[] = [];
    const receiver = createReceiver({
      secrets: SECRET,
      handlers: {},
      onError: (err) => void told.push(err.code),
    });
    const delivery = signedDelivery(event());
    await receiver.handle(delivery);
    await receiver.handle(delivery);
    expect(told).toEqual([]);
  });

  it('cannot change the answer: a throw and a rejection are ignored', async () => {
    for (const onError of [
      () => {
        throw new Error('logger down');
      },
      () => Promise.reject(new Error('logger down')),
      () => ({ status: 200 }),
    ]) {
      const receiver = createReceiver({ secrets: SECRET, handlers: {}, onError });
      const answer = await receiver.handle(signedDelivery(event(), { secret: 'whsec_wrong' }));
      expect([answer.status, bodyOf(answer).code]).toEqual([401, 'INVALID_SIGNATURE']);
    }
  });
});

describe('what a refusal reveals', () => {
  it('never puts a secret or a signature (sent or expected) in an answer or in what onError gets', async () => {
    const told: ReceiverFailure[] = [];
    const receiver = createReceiver({
      secrets: resolveSecrets,
      handlers: {
        IntegrationStatusChanged: () => {
          throw new Error('handler failed');
        },
      },
      onError: (err) => void told.push(err),
    });
    const body = JSON.stringify(event());
    const expected = signPayload(body, ALL_SECRETS).split(',').slice(1);
    const deliveries: SignedDelivery[] = [
      signedDelivery(body),
      signedDelivery(body, { secret: 'whsec_forged_secret' }),
      signedDelivery(body, { timestamp: now() - 900 }),
      signedDelivery(body, { timestamp: now() + 900 }),
      signedDelivery(body, { tenantId: 'merchant-404' }),
      signedDelivery(body, { signature: `t=${now()},v1=${'0'.repeat(63)}` }),
      signedDelivery(body, { signature: `t=x,${expected.join(',')}` }),
      signedDelivery('{"eventType": 1}'),
    ];
    const seen: string[] = [];
    for (const delivery of deliveries) {
      const answer = await receiver.handle(delivery);
      seen.push(answer.body, JSON.stringify(answer.headers));
      const sent = (delivery.headers['x-signature'] ?? '')
        .split(',')
        .filter((part) => part.startsWith('v1='));
      for (const text of [answer.body, JSON.stringify(answer.headers)]) {
        for (const v1 of sent) expect(text).not.toContain(v1.slice(3));
      }
    }
    for (const err of told) seen.push(err.message, JSON.stringify(err), String(err.stack));
    const everything = seen.join('\n');
    for (const secret of [...ALL_SECRETS, 'whsec_forged_secret']) expect(everything).not.toContain(secret);
    for (const v1 of expected) expect(everything).not.toContain(v1.slice(3));
    expect(told).toHaveLength(deliveries.length);
  });
});
