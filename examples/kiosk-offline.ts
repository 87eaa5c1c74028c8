/**
 * A self-service kiosk whose network comes and goes. Every sale is written to a durable outbox
 * on the kiosk's disk before the customer walks away; the outbox delivers it whenever the
 * Loyalty service can be reached, in order, and each outcome ends up in the kiosk's log.
 *
 *   LOYALTY_BASE_URL=https://loyalty.example.com LOYALTY_API_KEY=... LOYALTY_SIGNING_SECRET=... \
 *   KIOSK_OUTBOX_DIR=/var/lib/kiosk/loyalty-outbox node kiosk-offline.js
 */
import { LoyaltyClient, LoyaltyValidationError } from 'loyalty-partner-sdk';
import { createOutbox, fileStore, OutboxClosedError, OutboxFullError } from 'loyalty-partner-sdk/outbox';

const client = new LoyaltyClient({
  baseUrl: process.env.LOYALTY_BASE_URL ?? 'http://127.0.0.1:8787',
  apiKey: process.env.LOYALTY_API_KEY ?? '',
  signingSecret: process.env.LOYALTY_SIGNING_SECRET ?? '',
  timeoutMs: 5_000,
});

const outbox = createOutbox({
  client,
  // One directory per kiosk, on a disk that survives a reboot; a second process is refused.
  store: fileStore(process.env.KIOSK_OUTBOX_DIR ?? './loyalty-outbox', { maxEvents: 20_000 }),
  hooks: {
    onDelivered: ({ event, attempts, alreadyCredited }) =>
      console.info(
        `loyalty: ${event.envelope.entityId} delivered after ${attempts} attempt(s)${alreadyCredited ? ' (already credited)' : ''}`,
      ),
    onRetry: ({ code, delayMs }) =>
      console.warn(`loyalty: ${code}; next try in ${Math.round(delayMs / 1000)} s`),
    // The merchant must fix something in the dashboard; the sale waits aside, later sales go on.
    onParked: ({ event, code }) =>
      console.warn(`loyalty: ${event.envelope.entityId} parked (${code}); redeliver after the fix`),
    onDead: ({ event, code, message }) =>
      console.error(`loyalty: ${event.envelope.entityId} refused (${code}): ${message}`),
    // Older than the service's dedup window: a person decides (redeliver with the risk, or discard).
    onExpired: ({ event }) => console.error(`loyalty: ${event.envelope.entityId} expired; needs a decision`),
    onTenantPaused: ({ code }) => console.warn(`loyalty: merchant paused (${code}); probing slowly`),
    onTenantStopped: ({ reason }) =>
      console.error(`loyalty: sending stopped (${reason}); new credentials needed?`),
  },
});

/** Records the loyalty side of a sale; resolves once it is safe on disk, online or not. */
export async function recordSale(sale: {
  invoiceId: string;
  customerId: string;
  branchId: string;
  totalBeforeVat: number;
}): Promise<string | undefined> {
  try {
    const { eventId } = await outbox.enqueue('InvoiceEarned', {
      externalInvoiceId: sale.invoiceId,
      externalCustomerId: sale.customerId,
      externalBranchId: sale.branchId,
      subtotalAfterDiscountBeforeVat: sale.totalBeforeVat,
      earnType: 'Points',
      channel: 'Kiosk',
    });
    return eventId;
  } catch (err) {
    // The sale itself goes on; these are the cases where its loyalty event was not stored.
    if (err instanceof LoyaltyValidationError)
      console.error(`loyalty: sale ${sale.invoiceId} not recorded: ${err.message}`);
    else if (err instanceof OutboxFullError)
      console.error('loyalty: outbox full; call support (nothing was dropped)');
    else if (err instanceof OutboxClosedError)
      console.error('loyalty: kiosk shutting down; sale not recorded');
    else throw err;
    return undefined;
  }
}

/** What the back-office screen shows: how much waits, and which events need a person. */
export function loyaltyStatus() {
  const { pending, parked, dead, expired, tenants } = outbox.stats();
  return { pending, parked, dead, expired, paused: tenants.filter((tenant) => tenant.state !== 'active') };
}

await outbox.start();
process.once('SIGTERM', async () => {
  // Whatever is not delivered within two seconds stays on disk for the next start.
  await outbox.close({ deadlineMs: 2_000 });
  await client.close();
});
