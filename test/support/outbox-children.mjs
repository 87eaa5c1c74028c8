// What the outbox children (kiosks and POS processes that the crash and multi-process suites
// start) share. They get the client class from the bundle they import, so it is passed in.

/**
 * The client a child sends with: short retries, and a timeout that gives up on the emulator's
 * `timeout-after-processing` fault, which holds the answer until the caller gives up.
 */
export function impatientClient(LoyaltyClient, { baseUrl, apiKey, signingSecret, timeoutMs }) {
  return new LoyaltyClient({
    baseUrl,
    apiKey,
    signingSecret,
    timeoutMs,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, budget: false },
  });
}

/** The earn a POS child records with each sale: 20 riyals of points at `branch-1`. */
export function posEarn(invoice, customer) {
  return {
    externalInvoiceId: invoice,
    externalCustomerId: customer,
    externalBranchId: 'branch-1',
    subtotalAfterDiscountBeforeVat: 20,
    earnType: 'Points',
    channel: 'Pos',
  };
}

/**
 * The `attempt`th sale of POS `pos`: a customer drawn from `cust-0` ... `cust-<customers - 1>`,
 * an invoice id no other process uses, and one sale in ten to roll back on purpose.
 */
export function nextSale(pos, attempt, customers) {
  return {
    customer: `cust-${Math.floor(Math.random() * Number(customers))}`,
    invoice: `inv-${pos}-${process.pid}-${attempt}`,
    rollBack: Math.random() < 0.1,
  };
}
