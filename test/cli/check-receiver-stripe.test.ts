/*
 * The conformance kit grading a receiver built on a library partners already use: stripe-node's
 * `constructEvent` in Express (fixtures/receivers/stripe-node-receiver.ts). Its two gaps against
 * the contract are found, each with its fix, and nothing else is.
 */
import { checkReceiver, receiverCases } from 'loyalty-partner-sdk/testing';
import { describe, expect, it } from 'vitest';
import { startStripeNodeReceiver } from './fixtures/receivers/stripe-node-receiver.js';

const SECRET = 'whsec_stripe_node_receiver_0123456789';
const TENANT = 'merchant-1';

describe('check-receiver against a receiver on stripe-node constructEvent in Express', () => {
  it('fails exactly the timestamp 302 s ahead (stripe checks the past only) and the empty v1= (400, not 401)', async () => {
    const receiver = await startStripeNodeReceiver({ secret: SECRET, tenant: TENANT });
    try {
      const report = await checkReceiver({ url: receiver.url, secret: SECRET, tenantId: TENANT });
      const failed = report.cases.filter((result) => !result.pass);
      const fixOf = (id: string) => receiverCases.find((item) => item.id === id)?.fix;
      expect(failed).toEqual([
        expect.objectContaining({
          id: 'empty-v1',
          observed: expect.stringMatching(/^HTTP 400 INVALID_PAYLOAD \(\d+ ms\)$/),
          fix: fixOf('empty-v1'),
        }),
        expect.objectContaining({
          id: 'timestamp-302s-ahead',
          observed: expect.stringMatching(/^HTTP 200 \(\d+ ms\)$/),
          fix: fixOf('timestamp-302s-ahead'),
        }),
      ]);
      expect(report).toMatchObject({ passed: receiverCases.length - 1, failed: 2 });
    } finally {
      await receiver.stop();
    }
  });
});
