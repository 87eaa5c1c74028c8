/**
 * A/B of the 0 ms drain: `node bench/drain-ab.mjs <rootA> <rootB> [rounds] [customers]` drains
 * the kiosk backlog of `outbox-drain.mjs` with the built package of each root (a checkout with
 * its own `dist/`), alternating A, B, A, B... in one process against one loopback server (in its
 * own process), and prints each round's events/s and CPU time of this process per drained event
 * (user + system), then the medians. Both contenders share the machine's load at the same time.
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median } from './harness.mjs';
import { startLoopbackServer } from './loopback-server.mjs';
import { backlog } from './outbox-drain.mjs';
import { timedDrain } from './timed-drain.mjs';

async function load(root) {
  const dist = (name) => pathToFileURL(join(resolve(root), 'dist', name)).href;
  const [{ LoyaltyClient }, { createOutbox, fileStore }] = await Promise.all([
    import(dist('index.node.js')),
    import(dist('outbox.js')),
  ]);
  return { LoyaltyClient, createOutbox, fileStore };
}

const [rootA, rootB, rounds = '5', customers = '200'] = process.argv.slice(2);
const contenders = { A: await load(rootA), B: await load(rootB) };
const events = backlog(Number(customers));
const server = await startLoopbackServer();
const results = { A: [], B: [] };
try {
  for (const sdk of Object.values(contenders)) await timedDrain(sdk, server.origin, events.slice(0, 500));
  for (let i = 0; i < Number(rounds); i++) {
    for (const name of i % 2 === 0 ? ['A', 'B'] : ['B', 'A']) {
      const r = await timedDrain(contenders[name], server.origin, events);
      results[name].push(r);
      console.log(
        `round ${i + 1} ${name}: ${Math.round(r.perSec)} events/s, ${Math.round(r.cpuUsPerEvent)} µs CPU/event`,
      );
    }
  }
} finally {
  server.stop();
}
for (const [name, rs] of Object.entries(results)) {
  const perSec = median(rs.map((r) => r.perSec));
  const cpuUs = median(rs.map((r) => r.cpuUsPerEvent));
  console.log(
    `${name} (${name === 'A' ? rootA : rootB}): median ${Math.round(perSec)} events/s, ${Math.round(cpuUs)} µs CPU/event`,
  );
}
