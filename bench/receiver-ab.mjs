/**
 * A/B of one delivery: `node --single-threaded-gc --expose-gc bench/receiver-ab.mjs <rootA>
 * <rootB>` hands the 1 KB delivery of `receiver.mjs` to the Node build's `receiver.handle` of
 * each root (a checkout with its own `dist/`) and to stripe-node's `constructEvent`, in
 * interleaved, rotated rounds measured as `receiver.mjs` measures them (CPU time, each sample
 * collecting its own garbage), and prints µs per delivery, each one's paired ratio to
 * `constructEvent`, and B's to A. All three share the machine's load at the same moments.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { signPayload } from 'loyalty-partner-sdk/signature';
import Stripe from 'stripe';
import { BODY, SECRET } from './fixtures.mjs';
import { compare, pairedRatio } from './harness.mjs';

const forgetfulInbox = { begin: () => 'new', complete() {}, release() {} };
const headers = {
  'content-type': 'application/json',
  'x-signature': signPayload(BODY, SECRET),
  'x-tenantid': 'merchant-1',
  'x-correlation-id': '7d9f3c2e-41a8-4f0e-9b6d-2c5e8a1f4b30',
};

async function receiverOf(root) {
  const { createReceiver } = await import(
    pathToFileURL(join(resolve(root), 'dist', 'webhooks.node.js')).href
  );
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: forgetfulInbox,
    handlers: { LoyaltyRuleChanged: () => {} },
  });
  return async (n) => {
    for (let i = 0; i < n; i++) {
      const answer = await receiver.handle({ rawBody: BODY, headers });
      if (answer.status !== 200) throw new Error(`${root} answered ${answer.status}: ${answer.body}`);
    }
  };
}

const [rootA, rootB] = process.argv.slice(2);
if (!rootB) throw new Error('usage: receiver-ab.mjs <rootA> <rootB>');
const stripe = new Stripe('sk_test_bench_not_a_key');
const rows = await compare(
  [
    { name: `A ${rootA}`, run: await receiverOf(rootA) },
    { name: `B ${rootB}`, run: await receiverOf(rootB) },
    {
      name: 'stripe constructEvent',
      run: (n) => {
        for (let i = 0; i < n; i++) stripe.webhooks.constructEvent(BODY, headers['x-signature'], SECRET);
      },
    },
  ],
  { clock: 'cpu', rotate: true, gc: 'own', rounds: 21, sampleMs: 100, warmupMs: 300 },
);
const [a, b, c] = rows;
const pct = (x) => `${(x * 100).toFixed(1)}%`;
for (const row of rows)
  console.log(`${row.name}: ${(1e6 / row.opsPerSec).toFixed(2)} µs ± ${pct(row.spread)}`);
for (const [name, row] of [
  ['A', a],
  ['B', b],
]) {
  const { ratio, spread } = pairedRatio(row, c);
  console.log(`${name} ÷ constructEvent (paired): ${ratio.toFixed(3)}x ± ${pct(spread)}`);
}
const ab = pairedRatio(b, a);
console.log(`B ÷ A speed (paired): ${ab.ratio.toFixed(3)}x ± ${pct(ab.spread)}`);
