/**
 * The outbox's drain after an outage: a kiosk's backlog (per customer a sync, six sales, a
 * coupon sync, use and cancellation; 200 customers, one tenant) queued on `fileStore`, then
 * delivered to a loopback server that answers at once or after 50 ms (a cellular link). Each
 * figure is measured with the default `maxInFlight` (16) and with `maxInFlight: 1` (strict FIFO,
 * the outbox before the causal scheduler), in the same run.
 *
 * The figure is the SDK's: the loopback server runs in a child process (on the other core), so
 * answering takes nothing from the outbox's event loop.
 *
 * The kiosk of issue 12 is a long-running process that had been sending its sales live before its
 * link dropped. A fresh process's first drain is not that process: V8 compiles (TurboFan) some 150
 * functions of the send, journal and scheduler paths during it, in threads whose CPU counts, and
 * it costs about twice the CPU per event of the drains after it (an untimed drain of 500 events
 * first did not change that; neither did a bigger young generation, nor a warm server). So the
 * goal's row follows 4,000 events sent live (a few at a time, each group delivered before the
 * next), and the first drain of the fresh process is reported as its own row, timed first.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { SECRET } from './fixtures.mjs';
import { goal } from './harness.mjs';
import { startLoopbackServer } from './loopback-server.mjs';
import { timedDrain } from './timed-drain.mjs';

const sdk = { LoyaltyClient, createOutbox, fileStore };

/** Settings of this comparison, declared once. */
const SETTINGS = {
  customers: 200,
  /** Strict FIFO at 50 ms needs 50 ms per event: it drains a slice of the backlog only. */
  fifoSliceAt50ms: 200,
  /** Events the kiosk sent live before the outage (the untimed warm-up), and how many at a time. */
  liveEvents: 4_000,
  liveGroup: 8,
};

export function backlog(customers) {
  const sale = (c, n) => [
    'InvoiceEarned',
    {
      externalInvoiceId: `i-${c}-${n}`,
      externalCustomerId: `c-${c}`,
      externalBranchId: `b-${(c + n) % 5}`,
      subtotalAfterDiscountBeforeVat: 10 + n,
      earnType: 'Points',
      channel: 'Pos',
    },
  ];
  const steps = [
    (c) => ['CustomerSynced', { externalCustomerId: `c-${c}`, phone: `+9665${String(c).padStart(8, '0')}` }],
    (c) => sale(c, 1),
    (c) => sale(c, 2),
    (c) => [
      'CouponSynced',
      { externalCouponId: `k-${c}`, name: 'Ten off', discountType: 'FixedAmount', discountValue: 10 },
    ],
    (c) => sale(c, 3),
    (c) => [
      'CouponUsed',
      { externalCouponId: `k-${c}`, externalCustomerId: `c-${c}`, externalInvoiceId: `i-${c}-3` },
    ],
    (c) => sale(c, 4),
    (c) => ['CouponUsageCancelled', { externalCouponId: `k-${c}`, externalInvoiceId: `i-${c}-3` }],
    (c) => sale(c, 5),
    (c) => sale(c, 6),
  ];
  const events = [0, 1, 2, 3, 4].map((b) => [
    'BranchSynced',
    { externalBranchId: `b-${b}`, name: `Branch ${b}`, isActive: true },
  ]);
  for (const step of steps) for (let c = 0; c < customers; c++) events.push(step(c));
  return events;
}

/** Queues `events` while the tenant is stopped, then times the drain. Events per second. */
async function drain(origin, events, maxInFlight) {
  const { perSec } = await timedDrain(sdk, origin, events, { maxInFlight });
  return perSec;
}

/**
 * The kiosk online before its link dropped: sales enqueued as they happen, a few at a time, each
 * group delivered before the next. Untimed: it only brings the process to the state of one that
 * has been sending for a while.
 */
async function liveTraffic(origin, events, group) {
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-live-'));
  const client = new LoyaltyClient({ baseUrl: origin, apiKey: 'bench-api-key', signingSecret: SECRET });
  const outbox = createOutbox({ client, store: fileStore(dir) });
  try {
    await outbox.start();
    for (let i = 0; i < events.length; i += group) {
      await Promise.all(events.slice(i, i + group).map(([type, payload]) => outbox.enqueue(type, payload)));
      await outbox.flush();
    }
  } finally {
    await outbox.close({ deadlineMs: 1_000 });
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function run() {
  const events = backlog(SETTINGS.customers);
  const instant = await startLoopbackServer();
  const slow = await startLoopbackServer({ delayMs: 50 });
  try {
    // This process is fresh (run.mjs forks one per comparison): its first drain pays for the JIT.
    const at0Fresh = await drain(instant.origin, events, 16);
    const live = [...events, ...events].slice(0, SETTINGS.liveEvents);
    await liveTraffic(instant.origin, live, SETTINGS.liveGroup);
    const at0 = await drain(instant.origin, events, 16);
    const at0Fifo = await drain(instant.origin, events, 1);
    const at50 = await drain(slow.origin, events, 16);
    const at50Fifo = await drain(slow.origin, events.slice(0, SETTINGS.fifoSliceAt50ms), 1);
    return {
      sections: [
        {
          title: `outbox drain of a ${events.length}-event kiosk backlog (fileStore, one tenant)`,
          unit: 'events/s',
          rows: [
            { name: '0 ms link, maxInFlight 16 (default)', opsPerSec: at0 },
            { name: '0 ms link, maxInFlight 16, first drain of a fresh process', opsPerSec: at0Fresh },
            { name: '0 ms link, maxInFlight 1 (strict FIFO)', opsPerSec: at0Fifo },
            { name: '50 ms link, maxInFlight 16 (default)', opsPerSec: at50 },
            {
              name: `50 ms link, maxInFlight 1 (first ${SETTINGS.fifoSliceAt50ms} events)`,
              opsPerSec: at50Fifo,
            },
          ],
        },
      ],
      goals: [
        goal('outbox drain at 50 ms per request', at50, 150, { unit: '/s' }),
        goal('outbox drain at 0 ms per request', at0, 3_000, { unit: '/s' }),
      ],
      ratios: {
        drainAt0: at0,
        drainAt0FreshProcess: at0Fresh,
        drainAt0Fifo: at0Fifo,
        drainAt50: at50,
        drainAt50Fifo: at50Fifo,
      },
    };
  } finally {
    instant.stop();
    slow.stop();
  }
}
