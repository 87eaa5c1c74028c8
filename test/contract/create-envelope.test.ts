import {
  createEnvelope,
  type EventType,
  LoyaltyValidationError,
  newEventId,
  schemas,
} from 'loyalty-partner-sdk';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPE_NAMES, parseInboundEnvelope } from '../../src/contract/index.js';
import { samplePayload } from '../../src/testing/sample-payloads.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function envelopeOptions(eventType: EventType) {
  return eventType === 'IntegrationStatusChanged' ? { entityId: 'tenant-1' } : {};
}

describe('newEventId', () => {
  it('makes UUIDs with version 7 and the RFC 9562 variant bits', () => {
    for (let i = 0; i < 1000; i += 1) {
      const id = newEventId();
      expect(id).toMatch(UUID_V7);
      expect(Number.parseInt(id[14] ?? '', 16) >> 0).toBe(7);
      expect(Number.parseInt(id[19] ?? '', 16) & 0b1100).toBe(0b1000);
    }
  });

  it('makes ids that sort in creation order, even within one millisecond', () => {
    const ids = Array.from({ length: 20_000 }, () => newEventId());
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('encodes the creation time in the first 48 bits', () => {
    const before = Date.now();
    const id = newEventId();
    const millis = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    expect(millis).toBeGreaterThanOrEqual(before);
    expect(millis).toBeLessThanOrEqual(Date.now());
  });
});

describe('createEnvelope', () => {
  it.each([...EVENT_TYPE_NAMES])(
    'builds a valid %s envelope with entity type and id inferred',
    (eventType) => {
      const envelope = createEnvelope(eventType, samplePayload(eventType), envelopeOptions(eventType));
      expect(envelope.eventType).toBe(eventType);
      expect(envelope.eventId).toMatch(UUID_V7);
      expect(envelope.schemaVersion).toBe(1);
      expect(Date.parse(envelope.occurredAt)).not.toBeNaN();
      expect(envelope.occurredAt.endsWith('Z')).toBe(true);
      expect(envelope.entityId).not.toBe('');
      const direction =
        eventType === 'LoyaltyRuleChanged' ||
        eventType.startsWith('Re') ||
        eventType.startsWith('Integration');
      expect(envelope.sourceSystem).toBe(direction ? 'Loyalty' : 'Partner');
      if (envelope.sourceSystem === 'Partner') expect(() => parseInboundEnvelope(envelope)).not.toThrow();
      else expect(schemas.outboundEnvelope.safeParse(envelope).success).toBe(true);
    },
  );

  it('infers entityId from the payload field of the event type', () => {
    expect(createEnvelope('CustomerSynced', samplePayload('CustomerSynced')).entityId).toBe('cust-1001');
    expect(createEnvelope('InvoiceEarned', samplePayload('InvoiceEarned')).entityType).toBe('Invoice');
    expect(createEnvelope('LoyaltyRuleChanged', samplePayload('LoyaltyRuleChanged')).entityId).toBe(
      'store-7',
    );
    expect(
      createEnvelope('RedemptionExpiredOrCancelled', samplePayload('RedemptionExpiredOrCancelled')).entityId,
    ).toBe('red-77');
  });

  it('gives a batch the entity type of its items and the id of its first item', () => {
    const envelope = createEnvelope('BranchesSyncedBatch', samplePayload('BranchesSyncedBatch'));
    expect(envelope.entityType).toBe('Branch');
    expect(envelope.entityId).toBe('branch-olaya');
  });

  it('requires an explicit entityId for IntegrationStatusChanged, which has no id field', () => {
    expect(() => createEnvelope('IntegrationStatusChanged', { status: 'Enabled' })).toThrow(/entityId/);
  });

  it('keeps a given eventId, occurredAt, correlationId and entityId', () => {
    const eventId = newEventId();
    const correlationId = '0b9f6f0e-4c1e-4d3a-9d1c-2f6f1b7e9a10';
    const envelope = createEnvelope('ProductSynced', samplePayload('ProductSynced'), {
      eventId,
      occurredAt: new Date('2026-11-20T09:13:20.000Z'),
      correlationId,
      entityId: 'override',
    });
    expect(envelope).toMatchObject({
      eventId,
      correlationId,
      entityId: 'override',
      occurredAt: '2026-11-20T09:13:20.000Z',
    });
  });

  it('applies payload defaults', () => {
    const envelope = createEnvelope('ProductSynced', { externalProductId: 'p-1', name: 'Tea', price: 4 });
    expect(envelope.payload.isActive).toBe(true);
  });

  it('refuses bad options, naming each one', () => {
    const build = () =>
      createEnvelope('ProductSynced', samplePayload('ProductSynced'), {
        eventId: 'not-a-guid',
        occurredAt: '20 Nov 2026',
        correlationId: 'x',
      });
    expect(build).toThrow(LoyaltyValidationError);
    expect(build).toThrow(
      expect.objectContaining({
        issues: [
          expect.objectContaining({ path: 'eventId' }),
          expect.objectContaining({ path: 'occurredAt' }),
          expect.objectContaining({ path: 'correlationId' }),
        ],
      }),
    );
  });

  it('refuses an invalid Date as occurredAt with a LoyaltyValidationError naming it', () => {
    expect(() =>
      createEnvelope('ProductSynced', samplePayload('ProductSynced'), { occurredAt: new Date('not a date') }),
    ).toThrow(
      expect.objectContaining({
        code: 'INVALID_PAYLOAD',
        issues: [expect.objectContaining({ path: 'occurredAt' })],
      }),
    );
  });

  it('refuses an unknown event type', () => {
    expect(() => createEnvelope('InvoiceVoided' as EventType, {} as never)).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_EVENT_TYPE' }),
    );
  });

  it('never copies payload values into the error message', () => {
    const build = () => createEnvelope('CustomerSynced', { externalCustomerId: '', phone: '+966511112222' });
    expect(build).toThrow(
      expect.objectContaining({
        issues: [{ path: 'payload.externalCustomerId', message: 'must be a non-empty string' }],
      }),
    );
    const message = (() => {
      try {
        build();
      } catch (err) {
        return String(err);
      }
    })();
    expect(message).toMatch(/^LoyaltyValidationError: Invalid CustomerSynced payload/);
    expect(message).not.toContain('+966511112222');
  });
});

describe('parseInboundEnvelope', () => {
  const envelope = () => createEnvelope('CouponUsed', samplePayload('CouponUsed'));

  it('round-trips an envelope through JSON', () => {
    const original = envelope();
    expect(parseInboundEnvelope(JSON.parse(JSON.stringify(original)))).toEqual(original);
  });

  it('refuses an outbound type with WRONG_EVENT_DIRECTION', () => {
    const outbound = createEnvelope('IntegrationStatusChanged', { status: 'Disabled' }, { entityId: 't' });
    expect(() => parseInboundEnvelope(outbound)).toThrow(
      expect.objectContaining({ code: 'WRONG_EVENT_DIRECTION' }),
    );
  });

  it('refuses an entityType that does not belong to the event type', () => {
    expect(() => parseInboundEnvelope({ ...envelope(), entityType: 'Invoice' })).toThrow(
      /entityType: must be Coupon/,
    );
  });

  it('refuses an eventId that is not a UUIDv7, an offset timestamp and a wrong schemaVersion', () => {
    const bad = {
      ...envelope(),
      eventId: '0b9f6f0e-4c1e-4d3a-9d1c-2f6f1b7e9a10',
      occurredAt: '2026-11-20T12:00:00+03:00',
      schemaVersion: 2,
    };
    expect(() => parseInboundEnvelope(bad)).toThrow(
      expect.objectContaining({
        issues: expect.arrayContaining(
          ['eventId', 'occurredAt', 'schemaVersion'].map((path) => expect.objectContaining({ path })),
        ),
      }),
    );
  });
});
