/**
 * CPU time from /proc (Linux), for the benches that run several processes on one machine: a
 * process's own, a PostgreSQL cluster's (every backend), and the whole machine's. Where they all
 * share the cores, a figure bounded by the machine's CPU per event says so, not the design.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks of /proc/<pid>/stat, as µs (USER_HZ is 100 on Linux). */
export const TICK_MICROS = 10_000;
export const statOf = (pid) => {
  try {
    // Fields after the command's closing parenthesis: state is field 3, ppid 4, utime 14.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return {
      ppid: Number(fields[1]),
      self: Number(fields[11]) + Number(fields[12]),
      children: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    return undefined; // gone meanwhile
  }
};

/**
 * The CPU (µs) the PostgreSQL cluster used so far: the postmaster's own, that of its children
 * that exited (the postmaster waited for them: its `cutime`/`cstime`), and that of the live ones.
 */
export function postgresCpu(postmaster) {
  const main = statOf(postmaster);
  let ticks = main.self + main.children;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = statOf(entry);
    if (stat?.ppid === postmaster) ticks += stat.self;
  }
  return ticks * TICK_MICROS;
}

/**
 * Every core's time so far (µs), busy and in all, from /proc/stat: with the drainers, the
 * service and PostgreSQL on one machine, whether the drain was bounded by CPU.
 */
export function machineCpu() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const ticks = fields.map(Number);
  // user nice system idle iowait irq softirq steal: idle and iowait are the cores' free time,
  // steal the hypervisor's (not this machine's work).
  const all = ticks.slice(0, 8).reduce((sum, n) => sum + n, 0);
  return { busy: (all - ticks[3] - ticks[4] - ticks[7]) * TICK_MICROS, all: all * TICK_MICROS };
}
