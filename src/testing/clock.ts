import { backgroundTimeout } from '../internal/timers.js';
import { EmulatorError } from './emulator-error.js';

/**
 * The time the emulated service lives in. Everything that waits (retry ladder, redemption expiry)
 * goes through `schedule`, so a manual clock can run hours of it in one `advance()`.
 */
export interface EmulatorClock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Runs `task` once `delayMs` of emulated time has passed. */
  schedule(delayMs: number, task: () => Promise<void> | void): void;
  /** Manual clock only: moves time forward, running (and awaiting) every task that falls due. */
  advance(ms: number): Promise<void>;
  /** Drops every scheduled task (on close). */
  clear(): void;
}

/** Real time; waits are multiplied by `timeScale` so a test can shrink the six-hour ladder. */
export function systemClock(timeScale: number): EmulatorClock {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  return {
    now: () => Date.now(),
    schedule(delayMs, task) {
      // Unref'd: a forgotten emulator must not keep a test process or a CLI alive on its own.
      const timer = backgroundTimeout(
        () => {
          timers.delete(timer);
          void task();
        },
        Math.max(0, delayMs * timeScale),
      );
      timers.add(timer);
    },
    async advance() {
      throw new EmulatorError('INVALID_OPERATION', "advance() needs createEmulator({ clock: 'manual' })");
    },
    clear() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

type ManualTimer = { at: number; task: () => Promise<void> | void };

/** Time that moves only when the test says so. Tasks due at the same instant run in the order scheduled. */
export function manualClock(start: number): EmulatorClock {
  let now = start;
  // A Set iterates in insertion order: of the timers due first, the earliest scheduled wins.
  const timers = new Set<ManualTimer>();
  const nextDue = (limit: number): ManualTimer | undefined => {
    let best: ManualTimer | undefined;
    for (const timer of timers) if (timer.at <= limit && (!best || timer.at < best.at)) best = timer;
    return best;
  };
  return {
    now: () => now,
    schedule(delayMs, task) {
      timers.add({ at: now + Math.max(0, delayMs), task });
    },
    async advance(ms) {
      if (!(ms >= 0 && Number.isFinite(ms))) {
        throw new EmulatorError(
          'INVALID_OPERATION',
          'advance(ms) needs a finite number of milliseconds >= 0',
        );
      }
      const target = now + ms;
      // A task may schedule another inside the window (the next rung of the ladder): keep looking.
      for (let timer = nextDue(target); timer; timer = nextDue(target)) {
        timers.delete(timer);
        now = Math.max(now, timer.at);
        await timer.task();
      }
      now = target;
    },
    clear() {
      timers.clear();
    },
  };
}
