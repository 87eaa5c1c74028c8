import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { postgresStore } from 'loyalty-partner-sdk/postgres';
import { type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import type pg from 'pg';

/**
 * A merchant on the emulator whose POS outbox (postgresStore in `schema`) sent `count` sales
 * naming a stamp card the store does not have: the emulator answers each 400
 * STAMP_CARD_NOT_FOUND (fix the payload), so each ends `dead`. The error echoes `stampCardId`:
 * a hostile one shows how a page renders payload text.
 */
export async function deadSales(
  emulator: Emulator,
  url: string,
  pool: pg.Pool,
  schema: string,
  count: number,
  tenantId: string,
  stampCardId = 'card-that-is-not-there',
) {
  const merchant = emulator.createMerchant({ tenantId, autoConfirmBranches: true });
  const client = new LoyaltyClient({
    baseUrl: url,
    apiKey: merchant.apiKey,
    signingSecret: merchant.signingSecret,
    retry: false,
  });
  await client.send('BranchSynced', samplePayload('BranchSynced'));
  await client.send('CustomerSynced', samplePayload('CustomerSynced'));
  const outbox = () =>
    createOutbox({
      client,
      store: postgresStore(pool, { schema }),
      defaultTenantId: merchant.tenantId,
      retryDelayMs: 1,
      maxRetryDelayMs: 5,
    });
  const first = outbox();
  await first.start();
  const eventIds: string[] = [];
  for (let i = 1; i <= count; i++) {
    const { eventId } = await first.enqueue('InvoiceEarned', {
      ...samplePayload('InvoiceEarned'),
      externalInvoiceId: `inv-${tenantId}-${i}`,
      earnType: 'Stamps',
      stampCardId,
    });
    eventIds.push(eventId);
  }
  await first.flush();
  await first.close();
  /** Runs an outbox on the same table until nothing is deliverable (a POS server's drainer). */
  const drain = async () => {
    const again = outbox();
    await again.start();
    await again.flush();
    await again.close();
  };
  return { merchant, eventIds, drain, close: () => client.close() };
}
