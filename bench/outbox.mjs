/**
 * The durable outbox on `fileStore` in a temp dir: how many events per second `enqueue` makes
 * durable (resolved = fsynced), with many callers at once (group commit shares one fsync) and
 * with one caller awaiting each event, then how fast the queue drains to a loopback server
 * once its tenants are resumed. Enqueued events are held back (tenants stopped) so that the
 * enqueue figures measure the disk, not deliveries racing them.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { samplePayload } from 'loyalty-partner-sdk/testing';
import { SECRET } from './fixtures.mjs';
import { goal, median } from './harness.mjs';
import { startLoopbackServer } from './loopback-server.mjs';

/** Settings of this comparison, declared once. */
const SETTINGS = {
  /** Callers enqueueing at the same time, as terminals posting sales to one back office would. */
  callers: 64,
  /** Events per concurrent enqueue round, and rounds (the median is reported). */
  eventsPerRound: 4_000,
  rounds: 3,
  /** Events enqueued one at a time, each awaited. */
  sequentialEvents: 1_000,
  /** Tenants the events are spread over: the outbox delivers tenants in parallel. */
  tenants: 4, // the outbox's default `concurrency`
};

const tenantOf = (i) => `merchant-${i % SETTINGS.tenants}`;

async function enqueueRate(outbox, count, callers, offset) {
  const sale = samplePayload('InvoiceEarned');
  let next = 0;
  const caller = async () => {
    while (next < count) {
      const i = offset + next++;
      // A sale of its own, by one of 200 customers: the same invoice every time would make every
      // event follow the one before (the causal order), and the drain would measure that.
      const payload = { ...sale, externalInvoiceId: `inv-${i}`, externalCustomerId: `c-${i % 200}` };
      await outbox.enqueue('InvoiceEarned', payload, { tenantId: tenantOf(i) });
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: callers }, caller));
  return (count * 1000) / (performance.now() - started);
}

/** Runs enqueue rounds, then the drain; carries the outbox's goal. */
export async function run() {
  const server = await startLoopbackServer();
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-outbox-'));
  const client = new LoyaltyClient({
    baseUrl: server.origin,
    apiKey: 'bench-api-key',
    signingSecret: SECRET,
  });
  const outbox = createOutbox({ clientFor: () => client, store: fileStore(dir) });
  try {
    await outbox.start();
    const tenants = Array.from({ length: SETTINGS.tenants }, (_, i) => tenantOf(i));
    for (const tenant of tenants) await outbox.stopTenant(tenant, 'benchmark: held until the drain is timed');

    const concurrent = [];
    let enqueued = 0;
    for (let round = 0; round < SETTINGS.rounds; round++) {
      concurrent.push(await enqueueRate(outbox, SETTINGS.eventsPerRound, SETTINGS.callers, enqueued));
      enqueued += SETTINGS.eventsPerRound;
    }
    const sequential = await enqueueRate(outbox, SETTINGS.sequentialEvents, 1, enqueued);
    enqueued += SETTINGS.sequentialEvents;
    if (outbox.stats().pending !== enqueued) throw new Error('events were delivered before the drain');

    const started = performance.now();
    for (const tenant of tenants) await outbox.resumeTenant(tenant);
    const stats = await outbox.flush();
    const drain = (enqueued * 1000) / (performance.now() - started);
    if (stats.delivered !== enqueued || stats.pending !== 0) {
      throw new Error(`drained ${stats.delivered} of ${enqueued} events (${stats.pending} pending)`);
    }

    const enqueueConcurrent = median(concurrent);
    return {
      sections: [
        {
          title: `outbox on fileStore, ${SETTINGS.tenants} tenants, loopback server`,
          unit: 'events/s',
          rows: [
            { name: `durable enqueue, ${SETTINGS.callers} callers at once`, opsPerSec: enqueueConcurrent },
            { name: 'durable enqueue, one caller awaiting each', opsPerSec: sequential },
            { name: `drain ${enqueued} events (send + journal)`, opsPerSec: drain },
          ],
        },
      ],
      goals: [goal('outbox durable enqueues per second', enqueueConcurrent, 5_000, { unit: '/s' })],
      ratios: { enqueuePerSec: enqueueConcurrent, enqueueSequentialPerSec: sequential, drainPerSec: drain },
    };
  } finally {
    await outbox.close({ deadlineMs: 1_000 });
    await client.close();
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
