/**
 * `node bench/emulator-soak.mjs [events]` (after `npm run build`): the emulator as an integration
 * team runs it, `loyalty-partner emulate` in its own process with its traffic log on, fed
 * 1,000,000 signed events from a fresh start at 64 in flight: a backfill's mix of CustomerSynced
 * and ProductSynced over 20,000 customers and products, and InvoiceEarned for new invoices.
 * Prints the rate and the emulator's RSS every 100,000 events, then checks two goals and prints
 * PASS or FAIL for each: RSS below 300 MiB throughout (memory stays bounded by `historyLimit`), and
 * the 10,000 events sent after the million answered at least 0.8x as fast as the first 10,000,
 * in events per emulator CPU-second (nothing the emulator keeps slows it down). Every event must be answered 200. The
 * emulator's own CPU time is printed beside the wall-clock rate: on a machine busy with other work
 * the wall clock measures the machine, the CPU time the emulator. The load generator's own CPU
 * time and the load average are printed too: the generator (this process: envelopes, signatures,
 * HTTP) runs on the same machine, so a slow stretch with a busy generator or a high load average
 * says the emulator was not fed, not that it was slow.
 * Not part of `npm run bench` (it takes minutes).
 * `node bench/emulator-soak.mjs 50000` runs a short version of the same checks.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEnvelope } from 'loyalty-partner-sdk';
import { signPayload } from 'loyalty-partner-sdk/signature';
import { Pool } from 'undici';

const TOTAL = Number(process.argv[2] ?? 1_000_000);
const STEP = 100_000;
const IN_FLIGHT = 64;
const POOL = 20_000;
const WINDOW = 10_000;
const GOAL = { rssMb: 300, lateToEarly: 0.8 };
const API_KEY = 'lk_test_soak0000000000000000000000';
const SECRET = 'whsec_soak_secret_0123456789abcdef';
const BIN = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

/** The k-th event of the run: customers first, then the backfill's mix. */
function eventAt(k) {
  const n = k % POOL;
  if (k < POOL)
    return [
      'CustomerSynced',
      { externalCustomerId: `cust-${k}`, phone: `+9665${String(k).padStart(8, '0')}` },
    ];
  if (k % 10 === 0)
    return [
      'ProductSynced',
      { externalProductId: `prod-${n}`, name: `Product ${n}`, price: 10 + (n % 50), isActive: true },
    ];
  if (k % 10 === 1)
    return [
      'CustomerSynced',
      { externalCustomerId: `cust-${n}`, phone: `+9665${String(n).padStart(8, '0')}`, firstName: 'Soak' },
    ];
  return [
    'InvoiceEarned',
    {
      externalInvoiceId: `inv-${k}`,
      externalCustomerId: `cust-${n}`,
      externalBranchId: 'branch-soak',
      subtotalAfterDiscountBeforeVat: 20 + (k % 80),
      earnType: 'Points',
      stampCardId: null,
      channel: 'Pos',
    },
  ];
}

// utime + stime of the emulator, in seconds (clock ticks of 1/100 s): what it cost, however
// busy the machine is with other work.
const cpuSeconds = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

const rssMb = (pid) => {
  const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
};

async function startEmulator(dir) {
  const config = join(dir, 'emulator.json');
  writeFileSync(
    config,
    JSON.stringify({
      port: 0,
      merchants: [
        {
          tenantId: 'soak',
          apiKey: API_KEY,
          signingSecret: SECRET,
          branches: [{ externalBranchId: 'branch-soak' }],
        },
      ],
    }),
  );
  // The traffic log goes to a file, as to a terminal: read by someone else, never blocking on the
  // load generator, which shares the machine.
  const logPath = join(dir, 'traffic.log');
  const out = openSync(logPath, 'w');
  const flags = process.env.SOAK_NODE_FLAGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...flags, BIN, 'emulate', '--config', config], {
    stdio: ['ignore', out, 'inherit'],
  });
  closeSync(out);
  let url;
  while (!url) {
    if (child.exitCode !== null) throw new Error(`emulate exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    url = /on (http:\/\/\S+)/.exec(readFileSync(logPath, 'utf8'))?.[1];
  }
  const lines = () => readFileSync(logPath, 'utf8').split('\n').length - 1;
  return { child, url, lines };
}

/** Events per wall-clock second and per emulator CPU-second over a window of WINDOW events. */
function windowRate(from, to) {
  const seconds = (to.at - from.at) / 1000;
  return {
    eventsPerSecond: Math.round(WINDOW / seconds),
    eventsPerCpuSecond: Math.round(WINDOW / Math.max(to.cpu - from.cpu, 0.01)),
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'emulator-soak-'));
  const emulator = await startEmulator(dir);
  const logLines = () => emulator.lines();
  const pool = new Pool(emulator.url, { connections: 16 });
  const curve = [];
  let next = 0;
  let failures = 0;
  let firstFailure = '';
  let peakRss = rssMb(emulator.child.pid);
  const started = performance.now();
  let stretchStart = started;
  let cpuStart = cpuSeconds(emulator.child.pid);
  let generatorStart = process.cpuUsage();
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMb(emulator.child.pid));
  }, 250);

  // Marks (time, emulator CPU) when 0 and WINDOW events are answered, and when TOTAL and
  // TOTAL + WINDOW are: the early and the late window compared by the throughput goal.
  const mark = () => ({ at: performance.now(), cpu: cpuSeconds(emulator.child.pid) });
  const marks = { start: mark() };
  let answered = 0;
  const END = TOTAL + WINDOW;

  async function worker() {
    while (next < END) {
      const k = next++;
      const [eventType, payload] = eventAt(k);
      const body = JSON.stringify(createEnvelope(eventType, payload));
      const { statusCode, body: answer } = await pool.request({
        path: '/api/partner/v1/events',
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': API_KEY,
          'x-signature': signPayload(body, SECRET),
        },
        body,
      });
      const text = await answer.text();
      if (statusCode !== 200 && failures++ === 0) firstFailure = `${eventType} ${statusCode} ${text}`;
      answered += 1;
      if (answered === WINDOW) marks.early = mark();
      if (answered === TOTAL) marks.late = mark();
      if (answered === END) marks.end = mark();
      if ((k + 1) % STEP === 0 && k < TOTAL) {
        const now = performance.now();
        const rss = rssMb(emulator.child.pid);
        const cpu = cpuSeconds(emulator.child.pid);
        const generator = process.cpuUsage(generatorStart);
        peakRss = Math.max(peakRss, rss);
        curve.push({
          events: k + 1,
          eventsPerSecond: Math.round(STEP / ((now - stretchStart) / 1000)),
          // Events per second of the emulator's own CPU time: its speed on an idle core.
          eventsPerCpuSecond: Math.round(STEP / Math.max(cpu - cpuStart, 0.01)),
          // The load generator's events per CPU-second: below the emulator's, it is the bottleneck.
          eventsPerGeneratorCpuSecond: Math.round(STEP / ((generator.user + generator.system) / 1e6)),
          load: loadavg()[0].toFixed(1),
          rssMb: Math.round(rss),
          seconds: Math.round((now - started) / 100) / 10,
        });
        stretchStart = now;
        cpuStart = cpu;
        generatorStart = process.cpuUsage();
        const last = curve.at(-1);
        console.error(
          `${String(last.events).padStart(9)} events  ${String(last.eventsPerSecond).padStart(6)} events/s  ` +
            `${String(last.eventsPerCpuSecond).padStart(6)} events per CPU-second  RSS ${last.rssMb} MB  ` +
            `(generator ${last.eventsPerGeneratorCpuSecond} per CPU-second, load ${last.load})`,
        );
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  emulator.child.kill('SIGTERM');
  await new Promise((resolve) => emulator.child.once('exit', resolve));
  const written = logLines();
  rmSync(dir, { recursive: true, force: true });

  const early = windowRate(marks.start, marks.early);
  const late = windowRate(marks.late, marks.end);
  const memoryPass = peakRss < GOAL.rssMb;
  // Judged by the emulator's own CPU time: on a machine shared with other work the wall clock
  // measures the machine's load as much as the emulator. Both are printed.
  const throughputPass = late.eventsPerCpuSecond >= GOAL.lateToEarly * early.eventsPerCpuSecond;
  const pass = memoryPass && throughputPass && failures === 0;
  const fmt = (n) => n.toLocaleString('en-US');
  console.log(
    '| events | events/s (last 100k) | events per emulator CPU-second | emulator RSS (MiB) | events per generator CPU-second | load average |',
  );
  console.log('|--:|--:|--:|--:|--:|--:|');
  for (const p of curve)
    console.log(
      `| ${fmt(p.events)} | ${fmt(p.eventsPerSecond)} | ${fmt(p.eventsPerCpuSecond)} | ${p.rssMb} | ` +
        `${fmt(p.eventsPerGeneratorCpuSecond)} | ${p.load} |`,
    );
  console.log(
    `\n${fmt(END)} events in ${seconds.toFixed(0)} s (${fmt(Math.round(END / seconds))}/s overall); ` +
      `${failures} not answered 200${failures ? ` (first: ${firstFailure})` : ''}; ${fmt(written)} log lines.`,
  );
  console.log(
    `${memoryPass ? 'PASS' : 'FAIL'} memory: peak RSS ${peakRss.toFixed(0)} MiB through ${fmt(END)} events (goal < ${GOAL.rssMb} MiB)`,
  );
  console.log(
    `${throughputPass ? 'PASS' : 'FAIL'} throughput: ${fmt(late.eventsPerCpuSecond)} events per emulator CPU-second for the ${fmt(WINDOW)} after ${fmt(TOTAL)} ` +
      `vs ${fmt(early.eventsPerCpuSecond)} for the first ${fmt(WINDOW)} (${(late.eventsPerCpuSecond / early.eventsPerCpuSecond).toFixed(2)}x, goal >= ${GOAL.lateToEarly}x; ` +
      `wall clock ${fmt(late.eventsPerSecond)} vs ${fmt(early.eventsPerSecond)} events/s)`,
  );
  if (failures) console.log(`FAIL answers: ${failures} events not answered 200`);
  process.exitCode = pass ? 0 : 1;
}

await main();
