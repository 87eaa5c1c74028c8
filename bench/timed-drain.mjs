/**
 * One timed drain of a backlog on `fileStore`, shared by `drain-profile.mjs` and `drain-ab.mjs`:
 * the events are enqueued while their tenant is held, then the tenant is resumed and the drain
 * alone is timed (wall clock, and this process's CPU per drained event) and counted (journal
 * flushes and records it took). `sdk` is the package's `{ LoyaltyClient, createOutbox,
 * fileStore }`, from the installed build or another checkout's `dist/`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRET } from './fixtures.mjs';

export async function timedDrain(sdk, origin, events, { maxInFlight = 16, around = {} } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-drain-'));
  const client = new sdk.LoyaltyClient({ baseUrl: origin, apiKey: 'bench-api-key', signingSecret: SECRET });
  const store = sdk.fileStore(dir);
  const outbox = sdk.createOutbox({ client, store, maxInFlight });
  try {
    await outbox.start();
    await outbox.stopTenant('default', 'held');
    for (let i = 0; i < events.length; i += 200) {
      await Promise.all(events.slice(i, i + 200).map(([type, payload]) => outbox.enqueue(type, payload)));
    }
    await around.before?.();
    const before = store.stats();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await outbox.resumeTenant('default');
    const stats = await outbox.flush();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    await around.after?.();
    if (stats.delivered !== events.length) throw new Error(`drained ${stats.delivered} of ${events.length}`);
    const after = store.stats();
    return {
      perSec: (events.length * 1000) / ms,
      cpuUsPerEvent: (used.user + used.system) / events.length,
      flushes: after.flushes - before.flushes,
      records: after.records - before.records,
    };
  } finally {
    await outbox.close({ deadlineMs: 1_000 });
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}
