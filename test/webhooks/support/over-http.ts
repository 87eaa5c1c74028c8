import { createNodeListener } from 'loyalty-partner-sdk/node';
import type { Receiver } from 'loyalty-partner-sdk/webhooks';
import { listen } from '../../adapters/support/targets.js';
import type { SignedDelivery } from './deliveries.js';

/** What a delivery over HTTP was answered: the status and the parsed JSON body. */
export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * A receiver behind a real node:http server on loopback (`loyalty-partner-sdk/node`), as a
 * partner runs it; `post` sends one delivery with fetch. Close it after the test.
 */
export async function serveOverHttp(receiver: Receiver) {
  const target = await listen(createNodeListener(receiver));
  return {
    async post(delivery: SignedDelivery): Promise<HttpAnswer> {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.rawBody,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : {} };
    },
    close: () => target.close(),
  };
}
