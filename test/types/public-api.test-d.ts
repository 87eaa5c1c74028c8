// Compile-only checks of the public surface (after jose's test-d/): `tsc --noEmit` in `npm test`
// fails if a line marked @ts-expect-error compiles, so misuse that should not type-check cannot
// start to. Nothing here runs.
import {
  createEnvelope,
  type Envelope,
  ERROR_CODES,
  EVENT_TYPES,
  LoyaltyApiError,
  type LoyaltyClient,
  LoyaltyNetworkError,
  LoyaltyValidationError,
  type PayloadOf,
  type SendResult,
  schemas,
  signPayload,
  verifySignature,
} from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { SignatureVerificationError, verifySignatureAsync } from 'loyalty-partner-sdk/signature';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';

declare const client: LoyaltyClient;
const earn: PayloadOf<'InvoiceEarned'> = {
  externalInvoiceId: 'i',
  externalCustomerId: 'c',
  externalBranchId: 'b',
  subtotalAfterDiscountBeforeVat: 1,
  earnType: 'Points',
  stampCardId: null,
  channel: 'Pos',
};

export async function clientSurface(): Promise<void> {
  const result: SendResult = await client.send('InvoiceEarned', earn, { correlationId: 'x' });
  const { eventId, status, correlationId, attempts, body } = result;
  void [eventId, status, correlationId, attempts, body];

  // @ts-expect-error a payload of another event type
  await client.send('InvoiceEarned', { externalCouponId: 'k', externalInvoiceId: 'i' });
  // @ts-expect-error a field of the wrong type
  await client.send('ProductSynced', { externalProductId: 'p', name: 'n', price: '14' });
  // @ts-expect-error an event type the service sends, never the partner
  await client.send('IntegrationStatusChanged', { status: 'Enabled' });
  // @ts-expect-error not an event type at all
  await client.send('InvoiceVoided', earn);

  await client.lookupCustomer({ phone: '+966500000001' });
  await client.lookupCustomer({ customerId: 'c-1' });
  // @ts-expect-error exactly one of phone and customerId
  await client.lookupCustomer({ phone: '+966500000001', customerId: 'c-1' });

  await client.syncBatch('CustomersSyncedBatch', [{ externalCustomerId: 'c', phone: '+1' }]);
  // @ts-expect-error items of another entity
  await client.syncBatch('CustomersSyncedBatch', [{ externalBranchId: 'b', name: 'n', isActive: true }]);

  await client.sendEnvelope(
    createEnvelope('CouponUsed', { externalCouponId: 'k', externalCustomerId: 'c', externalInvoiceId: 'i' }),
  );
}

export function errorSurface(err: unknown): string {
  if (err instanceof LoyaltyApiError) {
    const facts: [number, string, string | undefined, string | undefined, boolean, number] = [
      err.status,
      err.code,
      err.correlationId,
      err.eventId,
      err.retryable,
      err.attempts,
    ];
    return `${facts.join()} ${err.action}`;
  }
  if (err instanceof LoyaltyValidationError) return err.issues.map((issue) => issue.path).join();
  if (err instanceof LoyaltyNetworkError) return String(err.cause);
  if (err instanceof SignatureVerificationError) {
    switch (err.code) {
      case 'INVALID_SIGNATURE':
      case 'SIGNATURE_EXPIRED':
        return err.reason;
      default: {
        const exhaustive: never = err.code;
        return exhaustive;
      }
    }
  }
  return '';
}

export function contractSurface(): void {
  const action: 'retry' | 'fix-setup' | 'fix-payload' | 'stop' | 'reauthenticate' | 'check-clock' =
    ERROR_CODES.CONCURRENCY_CONFLICT.action;
  const direction: 'inbound' | 'outbound' = EVENT_TYPES.InvoiceEarned.direction;
  void [action, direction, schemas.payloads.InvoiceEarned];
  // @ts-expect-error a code the contract does not have
  void ERROR_CODES.RATE_LIMITED;
  // @ts-expect-error stampCardId is a string or null
  createEnvelope('InvoiceEarned', { ...earn, stampCardId: 42 });

  const envelope: Envelope = createEnvelope('ProductSynced', { externalProductId: 'p', name: 'n', price: 1 });
  if (envelope.eventType === 'ProductSynced') {
    const active: boolean = envelope.payload.isActive;
    void active;
    // @ts-expect-error narrowed to the product payload
    void envelope.payload.externalCustomerId;
  }
}

export async function signatureSurface(body: Uint8Array, header: string | null): Promise<number> {
  const signed: string = signPayload(body, ['whsec_new', 'whsec_old'], { timestamp: 1 });
  const { timestamp } = verifySignature(body, signed, 'whsec_new', { toleranceSeconds: 300, now: 1 });
  const { secretIndex } = await verifySignatureAsync(body, header, ['a', 'b']);
  // @ts-expect-error the header is a string, not parsed JSON
  verifySignature(body, { t: 1 }, 'whsec_new');
  return timestamp + secretIndex;
}

export async function outboxSurface(): Promise<void> {
  const outbox = createOutbox({ client, store: fileStore('/var/lib/pos/loyalty-outbox') });
  await outbox.start();
  const { eventId }: { eventId: string } = await outbox.enqueue('InvoiceEarned', earn);
  // @ts-expect-error the outbox only queues events the partner sends
  await outbox.enqueue('LoyaltyRuleChanged', {});
  void eventId;
  await outbox.flush();
  await outbox.close({ deadlineMs: 5_000 });
}

export function receiverSurface(): void {
  createReceiver({
    secrets: (tenantId: string) => (tenantId === 't-1' ? ['whsec_new', 'whsec_old'] : undefined),
    toleranceSeconds: 300,
    handlers: {
      LoyaltyRuleChanged: (event, ctx) => {
        const version: number = event.payload.ruleVersion;
        const tenant: string = ctx.tenantId;
        const at: number = ctx.signatureTimestamp;
        void [version, tenant, at, ctx.correlationId, ctx.receivedAt];
      },
      IntegrationStatusChanged: (event) => {
        const status: 'Enabled' | 'Disabled' | 'Disconnected' = event.payload.status;
        void status;
      },
      // @ts-expect-error the receiver only dispatches outbound event types
      InvoiceEarned: () => {},
    },
  });
}
