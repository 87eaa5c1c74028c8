import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import type pg from 'pg';
import { bundleSdk } from './bundle-sdk.js';

/** What the outbox's process suites share: the SDK bundled for their children, and the emulator. */
export interface OutboxWorld {
  /** A temporary directory, removed by `close`. */
  readonly work: string;
  /** The SDK bundled from src/ for the children to import. */
  readonly bundle: string;
  readonly emulator: Emulator;
  readonly baseUrl: string;
  /** A merchant with branch `branch-1` and customers `cust-0` ... `cust-<customers - 1>`. */
  readonly merchant: MerchantCredentials;
  close(): Promise<void>;
}

/** The outbox with Postgres and the client: what the Postgres process suites bundle. */
export const POSTGRES_OUTBOX_ENTRIES = {
  'loyalty-partner-sdk/outbox': ['createOutbox'],
  'loyalty-partner-sdk/postgres': ['postgresStore'],
  'loyalty-partner-sdk': ['LoyaltyClient'],
} as const;

/** Bundles `entries` and starts the emulator with a merchant whose branch and customers exist. */
export async function outboxWorld(
  name: string,
  options: { customers: number; entries?: Record<string, readonly string[]> },
): Promise<OutboxWorld> {
  const work = await mkdtemp(join(tmpdir(), `${name}-`));
  const bundle = join(work, 'sdk-bundle.mjs');
  await bundleSdk(bundle, options.entries ?? POSTGRES_OUTBOX_ENTRIES);
  const emulator = createEmulator();
  const { url: baseUrl } = await emulator.listen();
  const merchant = emulator.createMerchant({ autoConfirmBranches: true });
  const { apiKey, signingSecret } = merchant;
  const setup = new LoyaltyClient({ baseUrl, apiKey, signingSecret });
  await setup.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
  for (let i = 0; i < options.customers; i++) {
    const phone = `+9665000${String(i).padStart(5, '0')}`;
    await setup.send('CustomerSynced', { externalCustomerId: `cust-${i}`, phone });
  }
  await setup.close();
  const close = async () => {
    await emulator.close();
    await rm(work, { recursive: true, force: true });
  };
  return { work, bundle, emulator, baseUrl, merchant, close };
}

/** Waits until every event of the Postgres outbox in `schema` is delivered. */
export async function untilDelivered(pool: pg.Pool, schema: string): Promise<void> {
  const undelivered = `SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state <> 'delivered'`;
  while ((await pool.query<{ n: number }>(undelivered)).rows[0]!.n > 0) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** An `InvoiceEarned` payload of a sale at `branch-1`. */
export const sale = (invoice: string, customer = 'cust-1') => ({
  externalInvoiceId: invoice,
  externalCustomerId: customer,
  externalBranchId: 'branch-1',
  subtotalAfterDiscountBeforeVat: 40,
  earnType: 'Points' as const,
  channel: 'Pos' as const,
});
