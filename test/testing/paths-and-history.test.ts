import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createEmulator, type Emulator, samplePayload } from 'loyalty-partner-sdk/testing';
import { afterEach, describe, expect, it } from 'vitest';

/** The contract's 24 h replay window (spec 8). */
const DAY_MS = 24 * 60 * 60 * 1000;

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A client of `emulator` called in process, closed after the test. */
function clientOf(emulator: Emulator, { apiKey, signingSecret }: { apiKey: string; signingSecret: string }) {
  const client = new LoyaltyClient({
    baseUrl: 'http://loyalty.test',
    apiKey,
    signingSecret,
    fetch: emulator.fetch,
  });
  closers.push(() => client.close());
  return client;
}

describe('the emulator answers only the partner paths, naming the one expected', () => {
  it('answers 404 with the error envelope for a doubled base path or any other prefix', async () => {
    const emulator = createEmulator();
    closers.push(() => emulator.close());
    const { url } = await emulator.listen();
    const doubled = await fetch(`${url}/api/partner/v1/api/partner/v1/events`, {
      method: 'POST',
      body: '{}',
    });
    expect(doubled.status).toBe(404);
    expect(await doubled.json()).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining(
        "expected /api/partner/v1/events. The base URL must be the service's origin",
      ),
      correlationId: expect.any(String),
    });
    const other = await fetch(`${url}/anything/here`);
    expect(other.status).toBe(404);
    expect((await other.json()).message).toBe(
      'No partner endpoint at /anything/here: the partner endpoints are /api/partner/v1/events, /api/partner/v1/connection and /api/partner/v1/customers/lookup',
    );
  });

  it('makes a client configured with the path in its base URL fail, instead of passing', async () => {
    const emulator = createEmulator();
    closers.push(() => emulator.close());
    const { url } = await emulator.listen();
    const { apiKey, signingSecret } = emulator.createMerchant();
    const client = new LoyaltyClient({
      baseUrl: `${url}/api/partner/v1`,
      apiKey,
      signingSecret,
      retry: false,
    });
    closers.push(() => client.close());
    await expect(client.send('BranchSynced', samplePayload('BranchSynced'))).rejects.toMatchObject({
      status: 404,
    });
  });
});

describe('memory stays flat however many events arrive (historyLimit)', () => {
  async function fill(historyLimit: number, events: number) {
    const emulator = createEmulator({ clock: 'manual', historyLimit });
    closers.push(() => emulator.close());
    const merchant = emulator.createMerchant({ branches: [{ externalBranchId: 'branch-olaya' }] });
    const { tenantId } = merchant;
    const client = clientOf(emulator, merchant);
    await client.send('CustomerSynced', samplePayload('CustomerSynced'));
    const ids: string[] = [];
    for (let i = 0; i < events; i++) {
      const sent = await client.send('InvoiceEarned', {
        ...samplePayload('InvoiceEarned'),
        externalInvoiceId: `inv-${i}`,
      });
      ids.push(sent.eventId);
    }
    return { emulator, tenantId, client, ids };
  }

  it('keeps the newest requests, ledger entries and invoices only, while the balance stays exact', async () => {
    const { emulator, tenantId } = await fill(20, 60);
    expect(emulator.requests().length).toBeLessThanOrEqual(22);
    expect(emulator.requests().at(-1)?.seq).toBe(61);
    expect(emulator.requests({ after: 59 }).map((r) => r.seq)).toEqual([60, 61]);
    expect(emulator.ledger(tenantId).length).toBeLessThanOrEqual(22);
    expect(emulator.merchant(tenantId).invoices).toHaveLength(20);
    expect(emulator.merchant(tenantId).invoices[0]?.externalInvoiceId).toBe('inv-40');
    expect(emulator.balance(tenantId, 'cust-1001').points).toBe(60 * 8);
  });

  it('forgets a cached answer after 24 hours, and the oldest beyond the limit', async () => {
    const { emulator, client, ids } = await fill(20, 30);
    const replay = (eventId: string | undefined) =>
      client.send(
        'InvoiceEarned',
        { ...samplePayload('InvoiceEarned'), externalInvoiceId: 'inv-29' },
        { eventId },
      );
    await replay(ids[29]);
    expect(emulator.events({ eventId: ids[29] }).map((r) => r.outcome)).toEqual(['processed', 'replayed']);
    await client.send(
      'InvoiceEarned',
      { ...samplePayload('InvoiceEarned'), externalInvoiceId: 'inv-0' },
      { eventId: ids[0] },
    );
    // Its answer and its invoice were forgotten (beyond the limit): processed afresh.
    expect(emulator.events({ eventId: ids[0] }).at(-1)?.outcome).toBe('processed');
    await emulator.advance(DAY_MS);
    // After 24 hours the answer is gone: the event is judged afresh, and the invoice is known.
    await expect(replay(ids[29])).rejects.toMatchObject({ code: 'PARTNER_INVOICE_ALREADY_EARNED' });
    expect(emulator.events({ eventId: ids[29] }).at(-1)?.outcome).toBe('rejected');
  });

  it("keeps each merchant's newest answers: another merchant's traffic never pushes them out", async () => {
    const emulator = createEmulator({ clock: 'manual', historyLimit: 5 });
    closers.push(() => emulator.close());
    const quiet = clientOf(emulator, emulator.createMerchant({ tenantId: 'quiet' }));
    const busy = clientOf(emulator, emulator.createMerchant({ tenantId: 'busy' }));
    const product = samplePayload('ProductSynced');
    const { eventId } = await quiet.send('ProductSynced', product);
    for (let i = 0; i < 20; i++)
      await busy.send('ProductSynced', { ...product, externalProductId: `p-${i}` });
    await quiet.send('ProductSynced', product, { eventId });
    // The request log keeps 5 records in all: only the replay is still in it.
    expect(emulator.events({ eventId }).map((r) => r.outcome)).toEqual(['replayed']);
  });

  it('replays each of the newest answers and forgets every older one, after many more events than the limit', async () => {
    const { emulator, tenantId, client, ids } = await fill(100, 700);
    const send = (i: number) =>
      client.send(
        'InvoiceEarned',
        { ...samplePayload('InvoiceEarned'), externalInvoiceId: `inv-${i}` },
        { eventId: ids[i] },
      );
    // The newest 100 answers (the CustomerSynced took one of 101 places before they came).
    for (let i = 600; i < 700; i++) await send(i);
    expect(emulator.events({ tenantId, after: 701 }).map((r) => r.outcome)).toEqual(
      Array(100).fill('replayed'),
    );
    // Each older one is judged afresh: its invoice was forgotten too, so it is credited again.
    for (let i = 0; i < 600; i += 50) await send(i);
    expect(new Set(emulator.events({ tenantId, after: 801 }).map((r) => r.outcome))).toEqual(
      new Set(['processed']),
    );
    expect(emulator.merchant(tenantId).invoices.map((i) => i.externalInvoiceId)).toEqual([
      ...Array.from({ length: 88 }, (_, k) => `inv-${612 + k}`),
      ...Array.from({ length: 12 }, (_, k) => `inv-${k * 50}`),
    ]);
  });
});
