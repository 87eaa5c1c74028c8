/**
 * A webhook from raw bytes to "handled": the SDK's `receiver.handle` as Node resolves it (the
 * `node` build, verifying with Node crypto) beside stripe-node's `constructEvent`. Both get the
 * same 1 KB body as a `Buffer` (as a server reads it) and the same `t=...,v1=...` header: the two
 * schemes share that format, and both produce what a user's receiver needs, a verified, parsed
 * event.
 *
 * Per call, `constructEvent` parses the header (split on `,` and `=`), decodes the body to a
 * string with a new TextDecoder, HMAC-SHA256s `<t>.<body>` (createHmac, hex digest), compares
 * each `v1` (timingSafeEqual over TextEncoder copies), checks the tolerance, decodes the body
 * again and `JSON.parse`s it. `receiver.handle` does the same work (one decode, a strict one
 * that refuses bytes that are not UTF-8) and, on top, what the contract asks of a receiver:
 * reads the tenant and correlation headers, looks up the tenant's secrets, validates the
 * envelope and its payload against the contract's schema, claims the eventId in the inbox
 * (dedup; here an inbox that never remembers, so every call is a first delivery), runs the
 * handler (a no-op), marks the event done and builds the JSON answer `{ status, headers, body }`.
 *
 * Measured by CPU time in interleaved, rotated rounds, each sample starting and ending on an
 * empty young generation (harness `gc: 'own'`), so that each pays for its own garbage.
 */

import { schemas } from 'loyalty-partner-sdk';
import { signPayload, verifySignature } from 'loyalty-partner-sdk/signature';
import { createReceiver, memoryInbox } from 'loyalty-partner-sdk/webhooks';
import Stripe from 'stripe';
import * as z from 'zod/mini';
import * as web from '../dist/webhooks.js';
import { BODY, SECRET } from './fixtures.mjs';
import { compare, goal, pairedRatio } from './harness.mjs';

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

/**
 * Where the time of one delivery goes: the steps `receiver.handle` takes, each alone, and the
 * three that `constructEvent` also takes (verify, decode, parse) plus validation, run back to
 * back. Validation is the contract's outbound envelope schema compiled by zod, as the Node
 * build compiles the schema of each type on its first delivery
 * (`src/platform-node/compiled-envelopes.ts`).
 */
function stepContenders() {
  const headers = headersFor(BODY);
  const header = headers['x-signature'];
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const schema = z.compile(schemas.outboundEnvelope);
  const json = JSON.parse(decoder.decode(BODY));
  const loop = (step) => (n) => {
    for (let i = 0; i < n; i++) step();
  };
  const validate = (value) => {
    if (!schema.safeParse(value).success) throw new Error('the fixture does not validate');
  };
  const receiver = createReceiver({
    secrets: SECRET,
    inbox: forgetfulInbox,
    handlers: { LoyaltyRuleChanged: () => {} },
  });
  return [
    { name: 'SDK receiver.handle, all of it', run: delivering(receiver, headers) },
    {
      name: 'stripe-node webhooks.constructEvent',
      run: loop(() => stripe.webhooks.constructEvent(BODY, header, SECRET)),
    },
    {
      name: 'verify + decode + JSON.parse + validate',
      run: loop(() => {
        verifySignature(BODY, header, SECRET);
        validate(JSON.parse(decoder.decode(BODY)));
      }),
    },
    { name: 'verifySignature (Node crypto)', run: loop(() => verifySignature(BODY, header, SECRET)) },
    { name: 'UTF-8 decode + JSON.parse', run: loop(() => JSON.parse(decoder.decode(BODY))) },
    { name: 'envelope validation (compiled schema)', run: loop(() => validate(json)) },
  ];
}

const stripe = new Stripe('sk_test_bench_not_a_key');
/** How every comparison here is measured (see the comment at the top). */
const STEADY = { clock: 'cpu', rotate: true, gc: 'own', rounds: 21, sampleMs: 100, warmupMs: 300 };
const micros = (row) => 1e6 / row.opsPerSec;

/**
 * Runs the comparison. The goal is a floor: `receiver.handle` does all that `constructEvent` does
 * and the contract's checks on top, and must not be slower than it (at least 1.0x).
 */
export async function run() {
  let handled = 0;
  const rows = await compare(
    contenders(() => {
      handled += 1;
    }),
    // Rotated, and each sample collects its own garbage: the receiver leaves promises behind and
    // constructEvent leaves strings; with a shared young generation, each scavenge (1 to 6 ms
    // under load) landed in whichever 40 ms sample filled it, a 35-48% spread. Long samples and
    // many rounds keep the one forced collection per sample under 1% of it.
    STEADY,
  );
  if (handled === 0) throw new Error('the handler never ran: the receiver measured nothing');
  rows.push(...(await compare(referenceContenders(), STEADY)));
  const [sdk, constructEvent] = rows;
  // The goal is judged on the ratio of each round (the two ran back to back, under one load).
  const paired = pairedRatio(sdk, constructEvent);
  const steps = await compare(stepContenders(), STEADY);
  const [whole, stripeAgain, core] = steps;
  // A difference of two medians of the same rounds: read it to a tenth of a microsecond.
  const stepRows = [
    ...steps.map((row) => ({ name: row.name, value: micros(row) })),
    {
      name: 'the rest of receiver.handle: headers, inbox, handler, answer, promises',
      value: micros(whole) - micros(core),
    },
  ];
  return {
    sections: [
      {
        title: `receive a ${BODY.length} B webhook`,
        unit: 'ops/s',
        rows: rows.map(({ name, opsPerSec, spread }) => ({ name, opsPerSec, spread })),
        baseline: sdk.name,
      },
      { title: 'where one delivery’s CPU time goes', unit: 'µs', rows: stepRows },
    ],
    goals: [goal('receiver.handle vs stripe-node constructEvent', paired.ratio, 1.0)],
    ratios: {
      receiverVsConstructEvent: paired.ratio,
      receiverVsConstructEventSpread: paired.spread,
      verifyParseValidateVsConstructEvent: core.opsPerSec / stripeAgain.opsPerSec,
    },
  };
}
