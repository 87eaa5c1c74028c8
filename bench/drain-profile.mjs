/**
 * One drain of the kiosk backlog of `outbox-drain.mjs` against the loopback server (in its own
 * process), for `node --cpu-prof bench/drain-profile.mjs`: prints events/s and the CPU time of
 * this process per drained event (user + system), the figure the 0 ms goal comes down to.
 */

import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox, fileStore } from 'loyalty-partner-sdk/outbox';
import { SECRET } from './fixtures.mjs';
import { startLoopbackServer } from './loopback-server.mjs';
import { backlog } from './outbox-drain.mjs';

async function drain(origin, events, maxInFlight) {
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-drain-'));
  const client = new LoyaltyClient({ baseUrl: origin, apiKey: 'bench-api-key', signingSecret: SECRET });
  const store = fileStore(dir);
  const outbox = createOutbox({ client, store, maxInFlight });
  try {
    await outbox.start();
    await outbox.stopTenant('default', 'held');
    for (let i = 0; i < events.length; i += 200) {
      await Promise.all(events.slice(i, i + 200).map(([type, payload]) => outbox.enqueue(type, payload)));
    }
    if (profiling) await session.post('Profiler.start');
    const before = store.stats();
    const cpu = process.cpuUsage();
    const started = performance.now();
    await outbox.resumeTenant('default');
    const stats = await outbox.flush();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (profiling) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(profiling, JSON.stringify(profile));
    }
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

const rounds = Number(process.argv[2] ?? 3);
/** `PROFILE=file.cpuprofile`: the last round's drain (only the drain) profiled into that file. */
let profiling;
const session = new Session();
if (process.env.PROFILE) {
  session.connect();
  await session.post('Profiler.enable');
}
const events = backlog(200);
const server = await startLoopbackServer();
try {
  await drain(server.origin, events.slice(0, 500), 16);
  for (let i = 0; i < rounds; i++) {
    if (i === rounds - 1) profiling = process.env.PROFILE;
    const { perSec, cpuUsPerEvent, flushes, records } = await drain(server.origin, events, 16);
    console.log(
      `${Math.round(perSec)} events/s, ${Math.round(cpuUsPerEvent)} µs CPU per event, ` +
        `${flushes} journal flushes for ${records} records`,
    );
  }
} finally {
  server.stop();
}
