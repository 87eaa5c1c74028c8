/*
 * One conformance suite for every adapter (after octokit/webhooks.js
 * test/integration/middleware.test.ts): each adapter test file calls `describeConformance` once,
 * with a `mount` that serves a receiver through that adapter. Deliveries are signed with
 * `signPayload`, sent as real HTTP requests (or real `Request` objects for fetch handlers), and
 * judged only by what comes back and by what the handlers saw.
 */
import type { AdapterOptions } from 'loyalty-partner-sdk/node';
import { checkReceiver, receiverCases, samplePayload } from 'loyalty-partner-sdk/testing';
import { createReceiver, type Receiver, type ReceiverOptions } from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { createReceiver as createWebReceiver } from '../../src/webhooks/index.js';
import {
  now,
  outboundEvent,
  resolveSecrets,
  SECRET,
  SECRETS,
  type SignedDelivery,
  signedDelivery,
} from '../webhooks/support/deliveries.js';
import { sendSlowly } from './support/slow-sender.js';
import type { Target } from './support/targets.js';

export type Mount = (receiver: Receiver, options?: AdapterOptions) => Promise<Target> | Target;

export interface Answer {
  status: number;
  contentType: string | null;
  correlationHeader: string | null;
  body: Record<string, unknown>;
}

// Fastify names the charset of every string it sends; JSON is UTF-8 either way.
const JSON_TYPE = expect.stringMatching(/^application\/json(; charset=utf-8)?$/);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sends one delivery to a target and reads the whole answer. */
export async function post(target: Target, delivery: SignedDelivery, method = 'POST'): Promise<Answer> {
  const hasBody = method !== 'GET' && method !== 'HEAD';
  const request = new Request(target.url, {
    method,
    headers: delivery.headers,
    body: hasBody ? delivery.rawBody : null,
  });
  const response = await target.send(request);
  const text = await response.text();
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    correlationHeader: response.headers.get('x-correlation-id'),
    body: text ? JSON.parse(text) : {},
  };
}

/** A receiver whose handlers record what they saw; `behaviour` may make them throw or wait. */
export function recordingReceiverOf(
  overrides: Partial<ReceiverOptions> = {},
  behaviour: () => unknown = () => {},
  create: (options: ReceiverOptions) => Receiver = createReceiver,
) {
  const seen: { eventId: string; eventType: string; tenantId: string; correlationId: string }[] = [];
  const unhandled: string[] = [];
  const record = (
    event: { eventId: string; eventType: string },
    ctx: { tenantId: string; correlationId: string },
  ) => {
    seen.push({
      eventId: event.eventId,
      eventType: event.eventType,
      tenantId: ctx.tenantId,
      correlationId: ctx.correlationId,
    });
    return behaviour();
  };
  const receiver = create({
    secrets: resolveSecrets,
    handlers: { LoyaltyRuleChanged: record, IntegrationStatusChanged: record },
    onUnhandled: (event) => void unhandled.push(event.eventType),
    ...overrides,
  });
  return { receiver, seen, unhandled };
}

/** A recording receiver of the Node build, for adapter-specific tests. */
export const recordingReceiver = (overrides?: Partial<ReceiverOptions>, behaviour?: () => unknown) =>
  recordingReceiverOf(overrides, behaviour, createReceiver);

/**
 * `build: 'web'` serves the Web build's receiver (Web Crypto verification), as an edge runtime
 * resolves `loyalty-partner-sdk/webhooks`; the default is the Node build's. `slowBody: 'reset'`
 * for a fetch handler behind a node:http bridge, where a body read stopped at its deadline may
 * reset the connection before the 408 gets through.
 */
export function describeConformance(
  adapter: string,
  mount: Mount,
  build: 'node' | 'web' = 'node',
  slowBody: 'answered' | 'reset' = 'answered',
): void {
  const create = build === 'web' ? createWebReceiver : createReceiver;
  const receiverOf = (overrides?: Partial<ReceiverOptions>, behaviour?: () => unknown) =>
    recordingReceiverOf(overrides, behaviour, create);
  async function serve<T>(receiver: Receiver, use: (target: Target) => Promise<T>, options?: AdapterOptions) {
    const target = await mount(receiver, options);
    try {
      return await use(target);
    } finally {
      await target.close();
    }
  }

  const expectError = (answer: Answer, status: number, code: string) => {
    expect(answer).toMatchObject({ status, contentType: JSON_TYPE, body: { code } });
    expect(Object.keys(answer.body).sort()).toEqual(['code', 'correlationId', 'message']);
    expect(answer.body.correlationId).toBe(answer.correlationHeader);
  };

  describe(`${adapter}: the receiver conformance suite`, () => {
    it("passes every case of the partners' conformance kit (checkReceiver), sent over the same transport", async () => {
      const { receiver } = receiverOf();
      const report = await serve(receiver, (target) =>
        checkReceiver({ url: target.url, secret: SECRET, tenantId: 'merchant-1', fetch: target.send }),
      );
      expect(report.cases.filter((result) => !result.pass)).toEqual([]);
      expect(report.cases.map((result) => result.id)).toEqual([
        ...receiverCases.map((item) => item.id),
        'prompt-answers',
      ]);
      expect(report).toMatchObject({ passed: receiverCases.length + 1, failed: 0 });
    });

    it('answers 200 to a valid delivery and hands the handler the event and the delivery context', async () => {
      const { receiver, seen } = receiverOf();
      const event = outboundEvent('LoyaltyRuleChanged');
      const answer = await serve(receiver, (target) =>
        post(target, signedDelivery(event, { correlationId: 'corr-1' })),
      );
      expect(answer).toEqual({
        status: 200,
        contentType: JSON_TYPE,
        correlationHeader: 'corr-1',
        body: { outcome: 'handled', eventId: event.eventId, correlationId: 'corr-1' },
      });
      expect(seen).toEqual([
        {
          eventId: event.eventId,
          eventType: 'LoyaltyRuleChanged',
          tenantId: 'merchant-1',
          correlationId: 'corr-1',
        },
      ]);
    });

    it('verifies the exact bytes, multi-byte UTF-8 included', async () => {
      const { receiver, seen } = receiverOf();
      const payload = { ...samplePayload('LoyaltyRuleChanged'), externalStoreId: 'مقهى-٧ ☕ store' };
      const answer = await serve(receiver, (target) =>
        post(target, signedDelivery(outboundEvent('LoyaltyRuleChanged', payload))),
      );
      expect(answer.status).toBe(200);
      expect(seen).toHaveLength(1);
    });

    it('answers 401 INVALID_SIGNATURE to a body changed after signing', async () => {
      const { receiver, seen } = receiverOf();
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const tampered = { ...delivery, rawBody: delivery.rawBody.replace('"Enabled"', '"Disabled"') };
      expectError(await serve(receiver, (target) => post(target, tampered)), 401, 'INVALID_SIGNATURE');
      expect(seen).toEqual([]);
    });

    it.each([
      ['stale', -600],
      ['from the future', 600],
    ])('answers 401 SIGNATURE_EXPIRED to an authentic delivery signed %s', async (_when, offset) => {
      const { receiver, seen } = receiverOf();
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'), {
        timestamp: now() + offset,
      });
      expectError(await serve(receiver, (target) => post(target, delivery)), 401, 'SIGNATURE_EXPIRED');
      expect(seen).toEqual([]);
    });

    it.each([
      ['no X-Signature header', null],
      ['a garbage X-Signature', 'not-a-signature'],
      ['an X-Signature without t=', `v1=${'ab'.repeat(32)}`],
      ['an X-Signature without v1=', `t=${now()}`],
      ['an X-Signature with a v1 that is not hex', `t=${now()},v1=${'zz'.repeat(32)}`],
    ])('answers 401 INVALID_SIGNATURE to %s', async (_case, signature) => {
      const { receiver, seen } = receiverOf();
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'), { signature });
      expectError(await serve(receiver, (target) => post(target, delivery)), 401, 'INVALID_SIGNATURE');
      expect(seen).toEqual([]);
    });

    it('accepts several v1 values when one of them matches', async () => {
      const { receiver, seen } = receiverOf();
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'), {
        secret: ['whsec_other', SECRET],
      });
      expect(delivery.headers['x-signature']?.match(/v1=/g)).toHaveLength(2);
      expect((await serve(receiver, (target) => post(target, delivery))).status).toBe(200);
      expect(seen).toHaveLength(1);
    });

    it('verifies two tenants with their own rotated secrets, chosen by X-TenantId', async () => {
      const { receiver, seen } = receiverOf();
      const answers = await serve(receiver, async (target) => [
        await post(
          target,
          signedDelivery(outboundEvent('IntegrationStatusChanged'), { secret: SECRETS['merchant-1'][0] }),
        ),
        await post(
          target,
          signedDelivery(outboundEvent('IntegrationStatusChanged'), { secret: SECRETS['merchant-1'][1] }),
        ),
        await post(
          target,
          signedDelivery(outboundEvent('IntegrationStatusChanged'), {
            tenantId: 'merchant-2',
            secret: SECRETS['merchant-2'],
          }),
        ),
        await post(
          target,
          signedDelivery(outboundEvent('IntegrationStatusChanged'), {
            tenantId: 'merchant-2',
            secret: SECRETS['merchant-1'],
          }),
        ),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 401]);
      expect(seen.map((event) => event.tenantId)).toEqual(['merchant-1', 'merchant-1', 'merchant-2']);
    });

    it('answers 401 INVALID_SIGNATURE to an unknown tenant and to a delivery without X-TenantId', async () => {
      const { receiver, seen } = receiverOf();
      await serve(receiver, async (target) => {
        const event = outboundEvent('IntegrationStatusChanged');
        expectError(
          await post(target, signedDelivery(event, { tenantId: 'merchant-404' })),
          401,
          'INVALID_SIGNATURE',
        );
        expectError(await post(target, signedDelivery(event, { tenantId: null })), 401, 'INVALID_SIGNATURE');
      });
      expect(seen).toEqual([]);
    });

    it('answers 500 HANDLER_FAILED when the handler throws, then 200 when the redelivery succeeds', async () => {
      let attempts = 0;
      const { receiver, seen } = receiverOf({}, () => {
        if (++attempts === 1) throw new Error('database down');
      });
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const answers = await serve(receiver, async (target) => [
        await post(target, delivery),
        await post(target, delivery),
        await post(target, delivery),
      ]);
      expectError(answers[0]!, 500, 'HANDLER_FAILED');
      expect(answers.slice(1).map((answer) => [answer.status, answer.body.outcome])).toEqual([
        [200, 'handled'],
        [200, 'duplicate'],
      ]);
      expect(seen).toHaveLength(2);
    });

    it('runs the handler once for three concurrent copies of one eventId', async () => {
      let entered = () => {};
      let release = () => {};
      const running = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const { receiver, seen } = receiverOf({}, () => {
        entered();
        return gate;
      });
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      const answers = await serve(receiver, async (target) => {
        let settled = 0;
        let twoSettled = () => {};
        const two = new Promise<void>((resolve) => {
          twoSettled = resolve;
        });
        const copies = [1, 2, 3].map(() =>
          post(target, delivery).then((answer) => {
            if (++settled === 2) twoSettled();
            return answer;
          }),
        );
        await running;
        await two; // the copies that lost the claim answer while the first is still running
        release();
        return Promise.all(copies);
      });
      expect(seen).toHaveLength(1);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503, 503]);
      for (const answer of answers.filter(({ status }) => status === 503))
        expectError(answer, 503, 'EVENT_IN_PROGRESS');
    });

    it('passes an event type unknown to this version to onUnhandled and answers 200', async () => {
      const { receiver, seen, unhandled } = receiverOf();
      const future = {
        ...outboundEvent('IntegrationStatusChanged'),
        eventType: 'TierUpgraded',
        payload: { tier: 'Gold' },
      };
      const answer = await serve(receiver, (target) => post(target, signedDelivery(future)));
      expect([answer.status, answer.body.outcome]).toEqual([200, 'unhandled']);
      expect(unhandled).toEqual(['TierUpgraded']);
      expect(seen).toEqual([]);
    });

    it('answers 400 INVALID_PAYLOAD to a signed body that is not JSON', async () => {
      const { receiver, seen, unhandled } = receiverOf();
      const answer = await serve(receiver, (target) =>
        post(target, signedDelivery('{"eventType": "Loyalty')),
      );
      expectError(answer, 400, 'INVALID_PAYLOAD');
      expect([...seen, ...unhandled]).toEqual([]);
    });

    it('puts a generated correlation id in the error envelope and the header when the delivery has none', async () => {
      const { receiver } = receiverOf();
      const answer = await serve(receiver, (target) =>
        post(target, signedDelivery('{}', { signature: null })),
      );
      expectError(answer, 401, 'INVALID_SIGNATURE');
      expect(answer.correlationHeader).toMatch(UUID);
    });

    it('answers 405 METHOD_NOT_ALLOWED to a GET', async () => {
      const { receiver } = receiverOf();
      const answer = await serve(receiver, (target) => post(target, signedDelivery(''), 'GET'));
      expectError(answer, 405, 'METHOD_NOT_ALLOWED');
    });

    it('answers 413 PAYLOAD_TOO_LARGE to a body over maxBodyBytes, without running anything', async () => {
      const { receiver, seen, unhandled } = receiverOf();
      const big = { ...outboundEvent('IntegrationStatusChanged'), padding: 'x'.repeat(4096) };
      const answer = await serve(receiver, (target) => post(target, signedDelivery(big)), {
        maxBodyBytes: 1024,
      });
      expectError(answer, 413, 'PAYLOAD_TOO_LARGE');
      expect([...seen, ...unhandled]).toEqual([]);
    });

    it('answers 408 REQUEST_TIMEOUT to a body trickling in slower than bodyTimeoutMs, without running anything', async () => {
      const { receiver, seen, unhandled } = receiverOf();
      // A byte every 50 ms: the whole delivery would take over a minute.
      const answer = await serve(
        receiver,
        (target) => sendSlowly(target, signedDelivery(outboundEvent('LoyaltyRuleChanged'))),
        {
          bodyTimeoutMs: 300,
        },
      );
      // Behind a node:http bridge that hands the body over as Readable.toWeb(req), stopping the
      // read destroys the request, so the 408 may lose the race with the connection's reset.
      // Either way the slow sender no longer holds the connection.
      if (!(slowBody === 'reset' && 'reset' in answer)) {
        expect(answer).toMatchObject({ status: 408, body: { code: 'REQUEST_TIMEOUT' } });
      }
      expect([...seen, ...unhandled]).toEqual([]);
    });

    it('hands the secrets resolver a UTF-8 X-TenantId as sent, not decoded as Latin-1', async () => {
      const tenant = 'مطعم-١';
      const tenants: string[] = [];
      const { receiver, seen } = receiverOf({
        secrets: (tenantId) => {
          tenants.push(tenantId);
          return tenantId === tenant ? [SECRET] : undefined;
        },
      });
      const delivery = signedDelivery(outboundEvent('LoyaltyRuleChanged'), {
        // The header's UTF-8 bytes, one character per byte: what goes on the wire.
        tenantId: Buffer.from(tenant, 'utf8').toString('latin1'),
      });
      const answer = await serve(receiver, (target) => post(target, delivery));
      expect([answer.status, tenants, seen.map((event) => event.tenantId)]).toEqual([
        200,
        [tenant],
        [tenant],
      ]);
    });
  });
}
