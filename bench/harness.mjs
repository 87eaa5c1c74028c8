/**
 * The measuring stick every comparison shares. Contenders run in interleaved rounds
 * (A B C D, A B C D, ...) so that whatever else the machine is doing hits them all alike, and
 * each contender's figure is the median of its rounds, which one noisy round cannot move.
 *
 * A contender is `{ name, run(n) }`: `run` performs `n` operations (synchronously, or returning
 * a promise) and may return the number it actually completed when that differs.
 */

/** Settings of {@link compare}, declared once. */
export const HARNESS_DEFAULTS = {
  /** Rounds per contender; the median of this many samples is reported. */
  rounds: 15,
  /** Wall time one sample of one contender aims at. */
  sampleMs: 40,
  /** Time each contender runs before measuring, so the JIT has settled. */
  warmupMs: 150,
  /**
   * `'cpu'` times a sample by the process's CPU time (user + system) instead of the wall clock.
   * For synchronous work on a shared machine: time spent descheduled while another process
   * runs is not the contender's cost, and the wall clock would charge it anyway.
   */
  clock: 'wall',
  /**
   * Start each round one contender later (A B C, B C A, C A B, ...), so that each follows every
   * other equally often. For contenders that leave very different amounts of work behind them
   * (garbage to collect, sockets to close): in a fixed order, the one that always runs right
   * after the messiest pays for it in every round.
   */
  rotate: false,
  /**
   * `'own'`: each sample starts on an empty young generation (a minor collection before it,
   * untimed) and ends with one (timed), so that a contender pays for collecting exactly the
   * garbage it made, never another's, and every sample of it collects the same number of times.
   * Left to itself, a scavenge lands in whichever sample fills the young generation: one
   * contender's 1 to 6 ms collection in another's 40 ms sample moved figures by 35-48%.
   * Needs `--expose-gc` (bench/run.mjs FLAGS) and synchronous work, or work that settles
   * within `run`, timed by `clock: 'cpu'`.
   */
  gc: 'shared',
};

/** The median of a list of numbers. */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The `p`th percentile (0 to 100) of a list of numbers: the value below which `p`% of them lie. */
export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Half the interquartile range over the median: how much the rounds disagreed, as a fraction. */
export function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return (at(0.75) - at(0.25)) / 2 / median(values);
}

const CLOCKS = {
  wall: () => {
    const started = process.hrtime.bigint();
    return () => Number(process.hrtime.bigint() - started) / 1e6;
  },
  cpu: () => {
    const started = process.cpuUsage();
    return () => {
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1e3;
    };
  },
};

// A minor (scavenge) collection, now: `gc` exists only under --expose-gc.
const collectYoung = () => globalThis.gc({ type: 'minor', execution: 'sync' });

async function timed(contender, n, clock, gc = 'shared') {
  if (gc === 'own') {
    if (typeof globalThis.gc !== 'function') throw new Error("gc: 'own' needs node --expose-gc");
    collectYoung();
  }
  const elapsed = CLOCKS[clock]();
  const result = contender.run(n);
  const done = result && typeof result.then === 'function' ? await result : result;
  if (gc === 'own') collectYoung();
  const ms = elapsed();
  return { ms, ops: typeof done === 'number' ? done : n };
}

/** The number of operations one sample needs to last about `sampleMs`. */
async function calibrate(contender, sampleMs, warmupMs, clock, gc) {
  let n = contender.minOps ?? 1;
  let spent = 0;
  for (;;) {
    const { ms } = await timed(contender, n, clock, gc);
    spent += ms;
    if (ms >= sampleMs / 4 && spent >= warmupMs) return Math.max(1, Math.round((n * sampleMs) / ms));
    n = ms < sampleMs / 8 ? n * 4 : n * 2;
  }
}

/**
 * Runs the contenders in interleaved rounds and returns, per contender, the median ops/s and
 * the spread of its rounds, in the order given.
 */
export async function compare(contenders, options = {}) {
  const { rounds, sampleMs, warmupMs, clock, rotate, gc } = { ...HARNESS_DEFAULTS, ...options };
  const sizes = [];
  for (const contender of contenders) sizes.push(await calibrate(contender, sampleMs, warmupMs, clock, gc));
  const samples = contenders.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const i = rotate ? (k + round) % contenders.length : k;
      const { ms, ops } = await timed(contenders[i], sizes[i], clock, gc);
      samples[i].push((ops * 1000) / ms);
    }
  }
  return contenders.map((contender, i) => ({
    name: contender.name,
    opsPerSec: median(samples[i]),
    spread: spread(samples[i]),
    samples: samples[i],
    rounds,
    clock,
  }));
}

/**
 * The median and spread of `a`'s speed over `b`'s, round by round: two contenders of one
 * {@link compare} ran side by side in each round, under the same load, so the ratio of a round
 * is steadier than the ratio of two medians taken over different moments.
 */
export function pairedRatio(a, b) {
  const ratios = a.samples.map((value, round) => value / b.samples[round]);
  return { ratio: median(ratios), spread: spread(ratios) };
}

/**
 * CPU time (user + system) per operation in microseconds: the median over `rounds` loops of
 * `n` synchronous operations, measured with `process.cpuUsage()` so waiting does not count.
 */
export function cpuMicrosPerOp(operation, { n = 2_000, rounds = 9 } = {}) {
  for (let i = 0; i < n; i++) operation(i);
  const perOp = [];
  for (let round = 0; round < rounds; round++) {
    const before = process.cpuUsage();
    for (let i = 0; i < n; i++) operation(i);
    const used = process.cpuUsage(before);
    perOp.push((used.user + used.system) / n);
  }
  return median(perOp);
}

/** `run(n)` for an async operation: `n` calls spread over `concurrency` loops. */
export function concurrently(concurrency, operation) {
  return async (n) => {
    let next = 0;
    const worker = async () => {
      while (next < n) {
        next += 1;
        await operation();
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, n) }, worker));
    return n;
  };
}

/** A goal row: the measured ratio or figure, the target, and whether it was met. */
export function goal(name, value, target, { atMost = false, unit = 'x' } = {}) {
  const pass = atMost ? value <= target : value >= target;
  return { goal: name, value, target: `${atMost ? '<=' : '>='} ${target}${unit}`, unit, pass };
}
