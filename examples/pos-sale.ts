/**
 * A point-of-sale day in miniature: sync the branch and the customer, earn points on an invoice,
 * record a coupon used on it, and react to each kind of failure the way a till should.
 *
 *   LOYALTY_BASE_URL=http://127.0.0.1:8787 LOYALTY_API_KEY=... LOYALTY_SIGNING_SECRET=... \
 *     npx tsx examples/pos-sale.ts   (any TypeScript runner; `npm test` type-checks it)
 */
import {
  createEnvelope,
  type InboundEnvelope,
  type InboundEventType,
  LoyaltyApiError,
  LoyaltyClient,
  LoyaltyClientClosedError,
  LoyaltyNetworkError,
  LoyaltyValidationError,
  type PayloadInput,
  type SendResult,
} from 'loyalty-partner-sdk';

const client = new LoyaltyClient({
  baseUrl: process.env.LOYALTY_BASE_URL ?? 'http://127.0.0.1:8787',
  apiKey: process.env.LOYALTY_API_KEY ?? '',
  signingSecret: process.env.LOYALTY_SIGNING_SECRET ?? '',
  timeoutMs: 5_000,
  hooks: {
    onRetry: ({ attempt, delayMs, code, correlationId }) =>
      console.warn(
        `loyalty: attempt ${attempt} failed (${code}, ${correlationId ?? 'no correlation id'}); retrying in ${delayMs} ms`,
      ),
    onClockSkew: ({ offsetMs }) =>
      console.warn(`loyalty: this till's clock is off by ${Math.round(offsetMs / 1000)} s; check NTP`),
  },
});

/**
 * Events a till could not deliver now, kept whole so that a later resend carries the same eventId
 * (the service then counts it once). A real POS keeps them on disk: see the outbox.
 */
const parked: { envelope: InboundEnvelope; firstAttemptAt: Date; reason: string }[] = [];

/**
 * Sends one event and decides what the till does when it fails. Returns the result, or
 * `undefined` when the event was parked or dropped; the sale itself always goes on.
 */
async function deliver<T extends InboundEventType>(
  eventType: T,
  payload: PayloadInput<T>,
): Promise<SendResult | undefined> {
  let envelope: InboundEnvelope;
  try {
    envelope = createEnvelope(eventType, payload) as InboundEnvelope;
  } catch (err) {
    // Nothing was sent: the till built a bad event. Log the fields; a human must fix the data.
    if (!(err instanceof LoyaltyValidationError)) throw err;
    console.error(
      `loyalty: ${eventType} refused locally:`,
      err.issues.map((i) => `${i.path} ${i.message}`).join('; '),
    );
    return undefined;
  }
  const firstAttemptAt = new Date();
  const park = (reason: string) => parked.push({ envelope, firstAttemptAt, reason });
  try {
    const result = await client.sendEnvelope(envelope, { firstAttemptAt });
    console.log(`loyalty: ${eventType} accepted in ${result.attempts} attempt(s), eventId ${result.eventId}`);
    return result;
  } catch (err) {
    if (err instanceof LoyaltyApiError && err.retryable) {
      // The service is paused, lapsed or overloaded: keep the event (same eventId) for later.
      park(err.code);
    } else if (err instanceof LoyaltyApiError) {
      switch (err.action) {
        case 'fix-setup': // e.g. BRANCH_MAPPING_UNCONFIRMED: redeliver the same event once the merchant fixes it
          park(err.code);
          console.warn(`loyalty: ${err.code}; tell the manager (${err.correlationId ?? ''})`);
          break;
        case 'reauthenticate': // the key or secret is wrong or revoked: stop and call support
          console.error(`loyalty: credentials refused (${err.code}); loyalty is off until they are fixed`);
          break;
        case 'check-clock':
          console.error('loyalty: the clock is off and could not be corrected; fix the time on this till');
          break;
        default: // 'stop' and 'fix-payload': this event will never be accepted as it is
          console.error(`loyalty: ${eventType} rejected for good: ${err.code} (${err.correlationId ?? ''})`);
      }
    } else if (err instanceof LoyaltyNetworkError) {
      // No answer (offline, timeout): the service may have it already; resend later, same eventId.
      park(err.code);
    } else if (err instanceof LoyaltyClientClosedError) {
      park(err.code); // the till is shutting down: keep the event for the next start
    } else {
      throw err;
    }
    return undefined;
  }
}

async function main(): Promise<void> {
  const connection = await client.checkConnection().catch((err: unknown) => err);
  if (connection instanceof Error) console.warn(`loyalty: connection check failed: ${connection.message}`);

  await deliver('BranchSynced', { externalBranchId: 'branch-olaya', name: 'Olaya', isActive: true });
  await deliver('CustomerSynced', {
    externalCustomerId: 'cust-1001',
    phone: '+966500000001',
    firstName: 'Noura',
  });
  await deliver('InvoiceEarned', {
    externalInvoiceId: 'inv-5001',
    externalCustomerId: 'cust-1001',
    externalBranchId: 'branch-olaya',
    subtotalAfterDiscountBeforeVat: 86.96,
    earnType: 'Points',
    channel: 'Pos',
  });
  await deliver('CouponUsed', {
    externalCouponId: 'coupon-10off',
    externalCustomerId: 'cust-1001',
    externalInvoiceId: 'inv-5001',
  });

  for (const { envelope, reason } of parked) {
    console.warn(`loyalty: ${envelope.eventType} ${envelope.eventId} kept for later (${reason})`);
  }
}

try {
  await main();
} finally {
  await client.close();
}
