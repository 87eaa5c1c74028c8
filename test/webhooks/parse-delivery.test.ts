import fc from 'fast-check';
import { createEnvelope, schemas } from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import {
  createReceiver,
  isOutboundEventType,
  OUTBOUND_EVENT_TYPES,
  type ReceiverFailure,
  type WebhookHandlers,
} from 'loyalty-partner-sdk/webhooks';
import { describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../../src/contract/index.js';
import { bodyOf, outboundEvent, SECRET, signedDelivery } from './support/deliveries.js';
import { mutatedEnvelope } from './support/mutated-envelopes.js';

function receiver() {
  const failures: ReceiverFailure[] = [];
  let runs = 0;
  const unhandled: string[] = [];
  const instance = createReceiver({
    secrets: SECRET,
    handlers: { LoyaltyRuleChanged: () => void runs++, IntegrationStatusChanged: () => void runs++ },
    onUnhandled: (event) => void unhandled.push(event.eventType),
    onError: (err) => void failures.push(err),
  });
  return { instance, failures, unhandled, runs: () => runs };
}

describe('reading a verified body as an envelope', () => {
  it.each([
    ['text that is not JSON', 'hello'],
    ['an empty body', ''],
    ['JSON that is not an object', '[1,2,3]'],
    ['an object that is not an envelope', '{"eventType":"LoyaltyRuleChanged"}'],
  ])('answers 400 INVALID_PAYLOAD to %s', async (_name, rawBody) => {
    const { instance, runs, unhandled } = receiver();
    const answer = await instance.handle(signedDelivery(rawBody));
    expect([answer.status, bodyOf(answer).code]).toEqual([400, 'INVALID_PAYLOAD']);
    expect(runs() + unhandled.length).toBe(0);
  });

  it('answers 400 INVALID_PAYLOAD to bytes that are not UTF-8, however they are signed', async () => {
    const { instance } = receiver();
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
    const { headers } = signedDelivery('x');
    headers['x-signature'] = signPayload(bytes, SECRET);
    const answer = await instance.handle({ rawBody: bytes, headers });
    expect(bodyOf(answer).code).toBe('INVALID_PAYLOAD');
  });

  it('names the envelope fields at fault, without their values', async () => {
    const { instance, failures } = receiver();
    const envelope = {
      ...outboundEvent('IntegrationStatusChanged'),
      eventId: 'not-a-guid',
      occurredAt: 'yesterday',
    };
    const answer = await instance.handle(signedDelivery(envelope));
    expect(bodyOf(answer).message).toMatch(/eventId: .*; occurredAt: /);
    expect(answer.body).not.toContain('yesterday');
    expect(failures[0]).toMatchObject({
      code: 'INVALID_PAYLOAD',
      issues: [{ path: 'eventId' }, { path: 'occurredAt' }],
    });
  });

  it('holds the payload of a known type to its schema and names the payload field at fault', async () => {
    const { instance, runs } = receiver();
    const rule = outboundEvent('LoyaltyRuleChanged');
    const broken = { ...rule, payload: { ...rule.payload, ruleVersion: 'four' } };
    const answer = await instance.handle(signedDelivery(broken));
    expect(answer.status).toBe(400);
    expect(bodyOf(answer).message).toContain('payload.ruleVersion');
    expect(runs()).toBe(0);
  });

  it('answers 400 INVALID_PAYLOAD to an event type partners send, which is never delivered', async () => {
    const { instance, runs, unhandled } = receiver();
    const inbound = createEnvelope('InvoiceEarned', samplePayload('InvoiceEarned'));
    const answer = await instance.handle(signedDelivery(inbound));
    expect([answer.status, bodyOf(answer).code]).toEqual([400, 'INVALID_PAYLOAD']);
    expect(bodyOf(answer).message).toContain('InvoiceEarned is an event partners send');
    expect(runs() + unhandled.length).toBe(0);
  });

  it('lets unknown extra fields through, so a newer service never breaks this receiver', async () => {
    const seen: unknown[] = [];
    const instance = createReceiver({
      secrets: SECRET,
      handlers: { IntegrationStatusChanged: (event) => void seen.push(event) },
    });
    const event = outboundEvent('IntegrationStatusChanged');
    const newer = { ...event, traceId: 't-1', payload: { ...event.payload, reasonText: 'merchant asked' } };
    expect((await instance.handle(signedDelivery(newer))).status).toBe(200);
    expect(seen[0]).toMatchObject({
      traceId: 't-1',
      payload: { status: 'Enabled', reasonText: 'merchant asked' },
    });
  });

  it('hands a null correlationId to the handler as absent', async () => {
    const seen: object[] = [];
    const instance = createReceiver({
      secrets: SECRET,
      handlers: { IntegrationStatusChanged: (event) => void seen.push(event) },
    });
    await instance.handle(
      signedDelivery({ ...outboundEvent('IntegrationStatusChanged'), correlationId: null }),
    );
    expect(seen[0]).not.toHaveProperty('correlationId');
  });

  it('accepts the body as a string, a Uint8Array or an ArrayBuffer', async () => {
    const { instance, runs } = receiver();
    for (const encode of [(text: string) => text, (text: string) => new TextEncoder().encode(text)]) {
      const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
      expect((await instance.handle({ ...delivery, rawBody: encode(delivery.rawBody) })).status).toBe(200);
    }
    const delivery = signedDelivery(outboundEvent('IntegrationStatusChanged'));
    const buffer = new TextEncoder().encode(delivery.rawBody).buffer;
    expect((await instance.handle({ ...delivery, rawBody: buffer })).status).toBe(200);
    expect(runs()).toBe(3);
  });
});

/**
 * What a handler must get for a body, by the two public schemas judged one after the other: the
 * envelope fields, then the payload of a known type at version 1. `undefined`: no handler runs.
 */
function byTheTwoSchemas(json: unknown): object | undefined {
  const header = schemas.envelopeHeader.safeParse(json);
  if (!header.success) return undefined;
  const { eventType, schemaVersion, payload } = header.data;
  if (!isOutboundEventType(eventType) || schemaVersion !== SCHEMA_VERSION) return undefined;
  const parsed = schemas.payloads[eventType].safeParse(payload);
  if (!parsed.success) return undefined;
  const event: Record<string, unknown> = { ...header.data, payload: parsed.data };
  if (event.correlationId === null) delete event.correlationId;
  return event;
}

describe('reading a verified body as an envelope (properties)', () => {
  it('hands a handler exactly what the envelope and payload schemas accept, field order included', async () => {
    await fc.assert(
      fc.asyncProperty(mutatedEnvelope, async (envelope) => {
        const seen: unknown[] = [];
        const handlers = Object.fromEntries(
          OUTBOUND_EVENT_TYPES.map((eventType) => [eventType, (event: unknown) => void seen.push(event)]),
        ) as WebhookHandlers;
        const delivery = signedDelivery(envelope);
        const expected = byTheTwoSchemas(JSON.parse(delivery.rawBody));
        const answer = await createReceiver({ secrets: SECRET, handlers }).handle(delivery);

        expect(bodyOf(answer).outcome === 'handled').toBe(expected !== undefined);
        expect(JSON.stringify(seen)).toBe(JSON.stringify(expected ? [expected] : []));
        expect(seen).toStrictEqual(expected ? [expected] : []);
      }),
      { numRuns: 300 },
    );
  });
});
