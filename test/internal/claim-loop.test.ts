import { expect, it } from 'vitest';
import { ClaimLoop } from '../../src/internal/claim-loop.js';
import { gate } from '../outbox/fixtures/scripted-sender.js';

/*
 * The loop under the outbox's drain and the deferred receiver's runner: `stop()` hands back
 * everything its owner must wait for before saying it is closed, the look still claiming included
 * (what it claims after `stop()` is started and waited for too, never left claimed and idle).
 */

it('waits, on stop, for the look under way and for the run it starts', async () => {
  const steps: string[] = [];
  const held = gate();
  const reached = gate();
  const loop: ClaimLoop<string> = new ClaimLoop<string>({
    carries: false,
    idOf: (id) => id,
    write: async (ids) => ids,
    leaseMs: 60_000,
    nextLookIn: () => Number.POSITIVE_INFINITY,
    look: async () => {
      reached.open();
      await held.promise;
      steps.push('claimed e-1');
      void loop.track(
        'e-1',
        Promise.resolve().then(() => steps.push('ran e-1')),
      );
    },
  });
  loop.start();
  await reached.promise;

  const waitFor = loop.stop();
  const stopped = Promise.all(waitFor).then(() => steps.push('stopped'));
  held.open();
  await stopped;

  expect(steps).toEqual(['claimed e-1', 'ran e-1', 'stopped']);
  expect(loop.busy).toBe(false);
});

it('has nothing to wait for when stopped between looks', async () => {
  const loop = new ClaimLoop<string>({
    carries: false,
    idOf: (id) => id,
    write: async (ids) => ids,
    leaseMs: 60_000,
    nextLookIn: () => Number.POSITIVE_INFINITY,
    look: async () => undefined,
  });
  loop.start();
  while (loop.busy) await new Promise((resolve) => setImmediate(resolve));
  expect(loop.stop()).toEqual([]);
});

it('carries an outcome recorded right after the wake that frees its slot on that look’s claim', async () => {
  const written: string[][] = [];
  const carried: string[][] = [];
  let looks = 0;
  const loop: ClaimLoop<string> = new ClaimLoop<string>({
    carries: true,
    idOf: (id) => id,
    write: async (ids) => {
      written.push([...ids]);
      return ids;
    },
    leaseMs: 60_000,
    nextLookIn: () => Number.POSITIVE_INFINITY,
    look: async () => {
      looks += 1;
      await loop.claim(async (outcomes) => {
        carried.push([...outcomes]);
        return { recorded: outcomes, claimed: [] };
      });
    },
  });
  loop.start();
  while (loop.busy) await new Promise((resolve) => setImmediate(resolve));

  // A run ends: its slot frees (the feature wakes the loop), then its outcome is recorded.
  loop.wake();
  expect(await loop.record('e-1')).toBe(true);

  expect(looks).toBe(2);
  expect(carried).toEqual([[], ['e-1']]);
  expect(written).toEqual([]);
  loop.stop();
});

it('renews the claims that runs started together confirm in the same turn in one statement', async () => {
  const renewals: string[][] = [];
  const loop = new ClaimLoop<string>({
    carries: false,
    idOf: (id) => id,
    write: async (ids) => ids,
    renew: async (ids) => {
      renewals.push([...ids]);
      return ids.filter((id) => id !== 'e-3');
    },
    leaseMs: 60_000,
    nextLookIn: () => Number.POSITIVE_INFINITY,
    look: async () => undefined,
  });
  // Three runs of one claim, each after a step of its own (as the outbox's attempts are).
  const held = await Promise.all(
    ['e-1', 'e-2', 'e-3'].map(async (id, k) => {
      for (let i = 0; i < k; i++) await Promise.resolve();
      return loop.confirm(id);
    }),
  );
  expect(held).toEqual([true, true, false]);
  expect(renewals).toEqual([['e-1', 'e-2', 'e-3']]);
});
