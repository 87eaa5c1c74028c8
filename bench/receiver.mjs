/**
 * A webhook from raw bytes to "handled": the SDK's `receiver.handle` as Node resolves it (the
 * `node` build, verifying with Node crypto), which verifies, parses, validates the envelope and
 * its payload, claims the event, runs the handler and builds the answer, beside stripe-node's
 * `constructEvent`, which verifies and runs `JSON.parse`. Both get the same 1 KB body and the
 * same `t=...,v1=...` header: the two schemes share that format.
 */

import { signPayload } from 'loyalty-partner-sdk/signature';
import { createReceiver, memoryInbox } from 'loyalty-partner-sdk/webhooks';
import Stripe from 'stripe';
import * as web from '../dist/webhooks.js';
import { BODY, SECRET } from './fixtures.mjs';
import { compare, goal } from './harness.mjs';

// Every call delivers the same eventId, so the inbox must claim it afresh each time: this one
// never remembers, which makes each call a first delivery with its handler run.
const forgetfulInbox = { begin: () => 'new', complete() {}, release() {} };

const headersFor = (body) => ({
  'content-type': 'application/json',
  'x-signature': signPayload(body, SECRET),
  'x-tenantid': 'merchant-1',
  'x-correlation-id': '7d9f3c2e-41a8-4f0e-9b6d-2c5e8a1f4b30',
});

/** `run(n)` handing the same delivery to `receiver` n times, each answer checked. */
const delivering = (receiver, headers) => async (n) => {
  for (let i = 0; i < n; i++) {
    const answer = await receiver.handle({ rawBody: BODY, headers });
    if (answer.status !== 200) throw new Error(`receiver answered ${answer.status}: ${answer.body}`);
  }
};

function contenders(onHandled) {
  const headers = headersFor(BODY);
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: forgetfulInbox,
    handlers: { LoyaltyRuleChanged: onHandled },
  });
  const stripe = new Stripe('sk_test_bench_not_a_key');
  return [
    { name: 'SDK receiver.handle (no-op handler)', run: delivering(receiver, headers) },
    {
      name: 'stripe-node webhooks.constructEvent',
      run: (n) => {
        for (let i = 0; i < n; i++) stripe.webhooks.constructEvent(BODY, headers['x-signature'], SECRET);
      },
    },
  ];
}

/**
 * For reference, measured after the goal (the builds share code, see signature.mjs): the
 * default in-memory inbox answering a redelivered eventId, and the Web build (Web Crypto) that
 * edge runtimes get, here on Node.
 */
function referenceContenders() {
  const headers = headersFor(BODY);
  const handlers = { LoyaltyRuleChanged: () => {} };
  return [
    {
      name: 'SDK receiver.handle, redelivery (memoryInbox)',
      run: delivering(createReceiver({ secrets: SECRET, inbox: memoryInbox(), handlers }), headers),
    },
    {
      name: 'SDK Web build receiver.handle (Web Crypto)',
      run: delivering(web.createReceiver({ secrets: SECRET, inbox: forgetfulInbox, handlers }), headers),
    },
  ];
}

/** Runs the comparison; the receiver carries the goal against `constructEvent`. */
export async function run() {
  let handled = 0;
  const rows = await compare(
    contenders(() => {
      handled += 1;
    }),
    { clock: 'cpu' },
  );
  if (handled === 0) throw new Error('the handler never ran: the receiver measured nothing');
  rows.push(...(await compare(referenceContenders(), { clock: 'cpu' })));
  const [sdk, stripe] = rows;
  return {
    sections: [
      {
        title: `receive a ${BODY.length} B webhook`,
        unit: 'ops/s',
        rows: rows.map(({ name, opsPerSec, spread }) => ({ name, opsPerSec, spread })),
        baseline: sdk.name,
      },
    ],
    goals: [goal('receiver.handle vs stripe-node constructEvent', sdk.opsPerSec / stripe.opsPerSec, 1.2)],
    ratios: { receiverVsConstructEvent: sdk.opsPerSec / stripe.opsPerSec },
  };
}
