import { LoyaltyClient, type LoyaltyClientOptions } from 'loyalty-partner-sdk';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import type { ScriptedServer } from './scripted-server.js';

export const API_KEY = 'pk_test_4f1c2a9e7b';
export const SECRET = 'whsec_test_9d8c7b6a5f';

/** A client on the scripted server with tiny backoff delays, so retries are quick. */
export function clientFor(
  server: ScriptedServer,
  options: Partial<LoyaltyClientOptions> = {},
): LoyaltyClient {
  return new LoyaltyClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    signingSecret: SECRET,
    retry: { baseDelayMs: 1, maxDelayMs: 4 },
    ...options,
  });
}

/** A valid InvoiceEarned payload with its own invoice id. */
export function invoice(id = 'inv-5001') {
  return { ...samplePayload('InvoiceEarned'), externalInvoiceId: id };
}

export { samplePayload };
