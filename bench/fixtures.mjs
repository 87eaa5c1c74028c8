/**
 * What every comparison signs, verifies and parses: one real webhook of the contract, exactly
 * 1 KB of UTF-8, built through the package's own public names.
 */
import { createEnvelope } from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';

/** The benchmark's signing secret. standardwebhooks wants base64 behind `whsec_`, so it is that. */
export const SECRET = `whsec_${Buffer.from('loyalty-bench-signing-secret-0001').toString('base64')}`;

/** Body size every signature figure is measured on. */
export const BODY_BYTES = 1024;

/** A `LoyaltyRuleChanged` envelope as the service would deliver it, `BODY_BYTES` long. */
export function ruleChangedEnvelope(eventId) {
  // A stamp card's display name is free text the merchant typed, Arabic and English here, so
  // the body carries multi-byte UTF-8 as real deliveries in this market do.
  const build = (name) =>
    createEnvelope(
      'LoyaltyRuleChanged',
      {
        externalStoreId: 'store-riyadh-olaya-0007',
        ruleType: 'StampRule',
        ruleVersion: 12,
        effectiveFrom: '2026-11-20T00:00:00Z',
        payload: {
          stampCardId: 'stamp-card-coffee-2026',
          name,
          mode: 'PerVisit',
          minInvoiceAmount: 15,
          amountPerStamp: null,
          cooldownDays: 1,
          isActive: true,
        },
      },
      {
        entityId: 'store-riyadh-olaya-0007',
        correlationId: '7d9f3c2e-41a8-4f0e-9b6d-2c5e8a1f4b30',
        ...(eventId ? { eventId } : {}),
      },
    );
  const base = 'بطاقة القهوة: اشترِ ٩ واحصل على العاشر مجانًا / Coffee card: buy 9, the 10th is free. ';
  const size = Buffer.byteLength(JSON.stringify(build(base)));
  if (size > BODY_BYTES) throw new Error(`the fixture is ${size} bytes before padding`);
  return build(base + 'x'.repeat(BODY_BYTES - size));
}

/**
 * The fixture serialised, as the bytes a server reads from the socket (a `Buffer`, as node:http,
 * `express.raw()` and every adapter of this package hand them over), for every contender alike.
 */
export const BODY = Buffer.from(JSON.stringify(ruleChangedEnvelope()));

/**
 * A delivery of the fixture under a fresh eventId, signed: its body and the headers the service
 * posts with it (spec 4.5 and 5.3: `X-Signature`, `X-TenantId`, `X-Correlation-Id`).
 */
export function signedDelivery() {
  const envelope = ruleChangedEnvelope(globalThis.crypto.randomUUID());
  const body = JSON.stringify(envelope);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'x-tenantid': 'merchant-1',
      'x-correlation-id': envelope.correlationId,
      'x-signature': signPayload(body, SECRET),
    },
  };
}
