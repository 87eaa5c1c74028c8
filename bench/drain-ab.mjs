/**
 * A/B of the 0 ms drain: `node bench/drain-ab.mjs <rootA> <rootB> [rounds] [customers]` drains
 * the kiosk backlog of `outbox-drain.mjs` with the built package of each root (a checkout with
 * its own `dist/`), alternating A, B, A, B... in one process against one loopback server (in its
 * own process), and prints each round's events/s and CPU time of this process per drained event
 * (user + system), then the medians. Both contenders share the machine's load at the same time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SECRET } from './fixtures.mjs';
import { startLoopbackServer } from './loopback-server.mjs';
import { backlog } from './outbox-drain.mjs';

async function load(root) {
  const dist = (name) => pathToFileURL(join(resolve(root), 'dist', name)).href;
  const [{ LoyaltyClient }, { createOutbox, fileStore }] = await Promise.all([
    import(dist('index.node.js')),
    import(dist('outbox.js')),
  ]);
  return { LoyaltyClient, createOutbox, fileStore };
}

async function drain(sdk, origin, events) {
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-bench-drain-ab-'));
  const client = new sdk.LoyaltyClient({ baseUrl: origin, apiKey: 'bench-api-key', signingSecret: SECRET });
  const outbox = sdk.createOutbox({ client, store: sdk.fileStore(dir) });
  try {
    await outbox.start();
    await outbox.stopTenant('default', 'held');
    for (let i = 0; i < events.length; i += 200) {
      await Promise.all(events.slice(i, i + 200).map(([type, payload]) => outbox.enqueue(type, payload)));
    }
    const cpu = process.cpuUsage();
    const started = performance.now();
    await outbox.resumeTenant('default');
    const stats = await outbox.flush();
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (stats.delivered !== events.length) throw new Error(`drained ${stats.delivered} of ${events.length}`);
    return { perSec: (events.length * 1000) / ms, cpuUs: (used.user + used.system) / events.length };
  } finally {
    await outbox.close({ deadlineMs: 1_000 });
    await client.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const [rootA, rootB, rounds = '5', customers = '200'] = process.argv.slice(2);
const contenders = { A: await load(rootA), B: await load(rootB) };
const events = backlog(Number(customers));
const server = await startLoopbackServer();
const results = { A: [], B: [] };
try {
  for (const sdk of Object.values(contenders)) await drain(sdk, server.origin, events.slice(0, 500));
  for (let i = 0; i < Number(rounds); i++) {
    for (const name of i % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
      const r = await drain(contenders[name], server.origin, events);
      results[name].push(r);
      console.log(
        `round ${i + 1} ${name}: ${Math.round(r.perSec)} events/s, ${Math.round(r.cpuUs)} µs CPU/event`,
      );
    }
  }
} finally {
  server.stop();
}
const median = (xs) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [name, rs] of Object.entries(results)) {
  const perSec = median(rs.map((r) => r.perSec));
  const cpuUs = median(rs.map((r) => r.cpuUs));
  console.log(
    `${name} (${name === 'A' ? rootA : rootB}): median ${Math.round(perSec)} events/s, ${Math.round(cpuUs)} µs CPU/event`,
  );
}
