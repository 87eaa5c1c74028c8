/**
 * One drain of the kiosk backlog of `outbox-drain.mjs` against the loopback server (in its own
 * process), for `node --cpu-prof bench/drain-profile.mjs`: prints events/s and the CPU time of
 * this process per drained event (user + system), the figure the 0 ms goal comes down to.
 */

import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import * as root from 'loyalty-partner-sdk';
import * as outboxEntry from 'loyalty-partner-sdk/outbox';
import { startLoopbackServer } from './loopback-server.mjs';
import { backlog } from './outbox-drain.mjs';
import { timedDrain } from './timed-drain.mjs';

const sdk = { LoyaltyClient: root.LoyaltyClient, ...outboxEntry };

/** Profiles the drain alone (not the enqueues before it) into `file`. */
const profiled = (file) => ({
  before: () => session.post('Profiler.start'),
  after: async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(profile));
  },
});

const rounds = Number(process.argv[2] ?? 3);
/** `PROFILE=file.cpuprofile`: the last round's drain (only the drain) profiled into that file. */
const session = new Session();
if (process.env.PROFILE) {
  session.connect();
  await session.post('Profiler.enable');
}
const events = backlog(200);
const server = await startLoopbackServer();
try {
  await timedDrain(sdk, server.origin, events.slice(0, 500));
  for (let i = 0; i < rounds; i++) {
    const around = i === rounds - 1 && process.env.PROFILE ? profiled(process.env.PROFILE) : {};
    const { perSec, cpuUsPerEvent, flushes, records } = await timedDrain(sdk, server.origin, events, {
      around,
    });
    console.log(
      `${Math.round(perSec)} events/s, ${Math.round(cpuUsPerEvent)} µs CPU per event, ` +
        `${flushes} journal flushes for ${records} records`,
    );
  }
} finally {
  server.stop();
}
