import fc from 'fast-check';
// The public name resolves as on Node (the `node` condition); the Web build is imported by path.
import {
  createReceiver as nodeCreateReceiver,
  OUTBOUND_EVENT_TYPES,
  type WebhookHandlers,
} from 'loyalty-partner-sdk/webhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createReceiver as webCreateReceiver } from '../../src/webhooks/index.js';
import {
  bodyOf,
  now,
  outboundEvent,
  SECRET,
  SECRETS,
  signedDelivery,
} from '../webhooks/support/deliveries.js';
import { mutatedEnvelope } from '../webhooks/support/mutated-envelopes.js';

afterEach(() => vi.restoreAllMocks());

const builds = [
  ['the Node build', nodeCreateReceiver],
  ['the Web build', webCreateReceiver],
] as const;

describe.each(builds)('createReceiver of %s', (_build, createReceiver) => {
  const receiverFor = (handled: string[]) =>
    createReceiver({
      secrets: (tenantId) => SECRETS[tenantId as keyof typeof SECRETS],
      handlers: { IntegrationStatusChanged: (event) => void handled.push(event.eventId) },
    });

  it('runs the handler for a delivery signed with the older of two rotating secrets', async () => {
    const handled: string[] = [];
    const event = outboundEvent('IntegrationStatusChanged');
    const answer = await receiverFor(handled).handle(
      signedDelivery(event, { secret: SECRETS['merchant-1'][1] }),
    );
    expect(answer.status).toBe(200);
    expect(handled).toEqual([event.eventId]);
  });

  it.each([
    ['signed with another tenant’s secret', { secret: SECRETS['merchant-2'][0] }, 'INVALID_SIGNATURE'],
    ['without X-Signature', { signature: null }, 'INVALID_SIGNATURE'],
    ['signed six minutes ago', { timestamp: now() - 360 }, 'SIGNATURE_EXPIRED'],
  ] as const)('answers 401 to a delivery %s, handler not run', async (_case, options, code) => {
    const handled: string[] = [];
    const answer = await receiverFor(handled).handle(
      signedDelivery(outboundEvent('IntegrationStatusChanged'), options),
    );
    expect(answer.status).toBe(401);
    expect(bodyOf(answer)).toMatchObject({ code });
    expect(handled).toEqual([]);
  });
});

describe('createReceiver of the Node build', () => {
  it('verifies with Node crypto, never with Web Crypto', async () => {
    const subtleSign = vi.spyOn(globalThis.crypto.subtle, 'sign');
    const receiver = nodeCreateReceiver({ secrets: SECRETS['merchant-2'], handlers: {} });
    const answer = await receiver.handle(
      signedDelivery(outboundEvent('IntegrationStatusChanged'), { secret: SECRETS['merchant-2'][0] }),
    );
    expect(answer.status).toBe(200);
    expect(subtleSign).not.toHaveBeenCalled();
  });

  it('still verifies with Web Crypto in the Web build (the spy above can see it)', async () => {
    const subtleSign = vi.spyOn(globalThis.crypto.subtle, 'sign');
    const receiver = webCreateReceiver({ secrets: SECRETS['merchant-2'], handlers: {} });
    await receiver.handle(
      signedDelivery(outboundEvent('IntegrationStatusChanged'), { secret: SECRETS['merchant-2'][0] }),
    );
    expect(subtleSign).toHaveBeenCalled();
  });
});

describe('the Node build (Node HMAC) and the Web build (Web Crypto)', () => {
  /** Everything a receiver of `createReceiver` says and hands over for one delivery. */
  async function receive(
    createReceiver: typeof nodeCreateReceiver,
    delivery: ReturnType<typeof signedDelivery>,
  ) {
    const seen: unknown[] = [];
    const failures: unknown[] = [];
    const handlers = Object.fromEntries(
      OUTBOUND_EVENT_TYPES.map((eventType) => [eventType, (event: unknown) => void seen.push(event)]),
    ) as WebhookHandlers;
    const receiver = createReceiver({
      secrets: SECRET,
      handlers,
      onUnhandled: (event, ctx) => void seen.push([ctx.reason, event]),
      onError: (err) => void failures.push([err.code, err.message, 'issues' in err ? err.issues : []]),
    });
    const answer = await receiver.handle(delivery);
    // Serialised, so that a difference in field order shows too.
    return { answer, seen: JSON.stringify(seen), failures };
  }

  it('answer every delivery alike, name the same faults and hand over the same events', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedEnvelope, async (envelope) => {
        const delivery = signedDelivery(envelope, { correlationId: '0b9d7a52-6a43-4a3c-9a5e-2f6f1b1c0d11' });
        const node = await receive(nodeCreateReceiver, delivery);
        const web = await receive(webCreateReceiver, delivery);
        expect(node).toEqual(web);
      }),
      { numRuns: 300 },
    );
  });
});
