/**
 * Signing and verifying a 1 KB webhook: the SDK (`loyalty-partner-sdk/signature`, which Node
 * resolves to the Node-crypto build) beside a bare `createHmac` + `timingSafeEqual` (the floor: the
 * least a verifier can do per request with node:crypto), stripe-node and standardwebhooks. The
 * Web Crypto functions (`verifySignatureAsync`, `signPayloadAsync`: all the Web build has) are
 * shown for reference, without a goal.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  signPayload,
  signPayloadAsync,
  verifySignature,
  verifySignatureAsync,
} from 'loyalty-partner-sdk/signature';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { BODY, SECRET } from './fixtures.mjs';
import { compare, goal } from './harness.mjs';

const now = () => Math.floor(Date.now() / 1000);

function verifyContenders() {
  const t = now();
  const header = signPayload(BODY, SECRET, { timestamp: t });
  const hex = header.slice(header.indexOf('v1=') + 3);
  const standard = new Webhook(SECRET);
  const msgId = `msg_${randomUUID()}`;
  const standardHeaders = {
    'webhook-id': msgId,
    'webhook-timestamp': String(t),
    'webhook-signature': standard.sign(msgId, new Date(t * 1000), BODY),
  };
  const loop = (verify) => (n) => {
    for (let i = 0; i < n; i++) verify();
  };
  return [
    {
      name: 'bare createHmac + timingSafeEqual (floor)',
      run: loop(() => {
        const mac = createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest();
        if (!timingSafeEqual(mac, Buffer.from(hex, 'hex'))) throw new Error('floor: no match');
      }),
    },
    { name: 'SDK verifySignature (Node crypto)', run: loop(() => verifySignature(BODY, header, SECRET)) },
    {
      name: 'stripe-node webhooks.signature.verifyHeader',
      run: loop(() => Stripe.webhooks.signature.verifyHeader(BODY, header, SECRET, 300)),
    },
    {
      // jsonParse off: the others check the signature only, so this one must not parse JSON either.
      name: 'standardwebhooks verify',
      run: loop(() => standard.verify(BODY, standardHeaders, { jsonParse: false })),
    },
  ];
}

/**
 * The Web Crypto functions, for reference. Measured after the others: they share the core with
 * the Node-crypto functions, and calling both would make its call sites polymorphic, slowing the
 * Node figures in a way no user who calls one kind ever sees.
 */
function webCryptoContenders() {
  const header = signPayload(BODY, SECRET);
  return [
    {
      name: 'SDK verifySignatureAsync (Web Crypto)',
      run: async (n) => {
        for (let i = 0; i < n; i++) await verifySignatureAsync(BODY, header, SECRET);
      },
    },
    {
      name: 'SDK signPayloadAsync (Web Crypto)',
      run: async (n) => {
        for (let i = 0; i < n; i++) await signPayloadAsync(BODY, SECRET);
      },
    },
  ];
}

function signContenders() {
  const standard = new Webhook(SECRET);
  const msgId = `msg_${randomUUID()}`;
  const loop = (sign) => (n) => {
    for (let i = 0; i < n; i++) sign();
  };
  return [
    {
      name: 'bare createHmac hex (floor)',
      run: loop(() => {
        const t = now();
        return `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.`).update(BODY).digest('hex')}`;
      }),
    },
    { name: 'SDK signPayload (Node crypto)', run: loop(() => signPayload(BODY, SECRET)) },
    {
      name: 'stripe-node webhooks.generateTestHeaderString',
      run: loop(() => Stripe.webhooks.generateTestHeaderString({ payload: BODY, secret: SECRET })),
    },
    { name: 'standardwebhooks sign', run: loop(() => standard.sign(msgId, new Date(), BODY)) },
  ];
}

/**
 * Runs both groups. The goal is a floor, not a record: `verifySignature` does what any verifier
 * must (parse, MAC, compare in constant time, check the tolerance) at no less than 0.9x the bare
 * `createHmac` + `timingSafeEqual` that is the least a verifier can do. The other rows are context.
 */
export async function run() {
  const verify = await compare(verifyContenders(), { clock: 'cpu' });
  const sign = await compare(signContenders(), { clock: 'cpu' });
  const reference = await compare(webCryptoContenders(), { clock: 'cpu' });
  const [floor, sdk, stripe, standard] = verify;
  const [signFloor, sdkSign, stripeSign, standardSign] = sign;
  return {
    sections: [
      {
        title: `verify a ${BODY.length} B webhook`,
        unit: 'ops/s',
        rows: [...verify, reference[0]],
        baseline: sdk.name,
      },
      {
        title: `sign a ${BODY.length} B body`,
        unit: 'ops/s',
        rows: [...sign, reference[1]],
        baseline: sdkSign.name,
      },
    ],
    goals: [goal('verifySignature vs the bare createHmac floor', sdk.opsPerSec / floor.opsPerSec, 0.9)],
    ratios: {
      verifyVsFloor: sdk.opsPerSec / floor.opsPerSec,
      verifyVsStripe: sdk.opsPerSec / stripe.opsPerSec,
      verifyVsStandardWebhooks: sdk.opsPerSec / standard.opsPerSec,
      signVsFloor: sdkSign.opsPerSec / signFloor.opsPerSec,
      signVsStripe: sdkSign.opsPerSec / stripeSign.opsPerSec,
      signVsStandardWebhooks: sdkSign.opsPerSec / standardSign.opsPerSec,
    },
  };
}
