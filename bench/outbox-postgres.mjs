/**
 * The transactional outbox on Postgres (`postgresStore`), against a real PostgreSQL started for
 * the run (test/support/real-servers.ts, or `DATABASE_URL`):
 *
 * 1. What `outbox.enqueue(type, payload, { tx })` adds to a one-row sale transaction (BEGIN,
 *    INSERT the sale, COMMIT), side by side in interleaved rounds on one connection, on a
 *    cluster with Postgres's default durability (fsync, synchronous_commit on: what a POS server
 *    runs). The same on a no-fsync cluster is shown beside it, for the worst case. Beside the
 *    enqueue, the cheapest statement there is (`SELECT 1`, prepared) in the same place: what one
 *    statement more in the transaction costs whatever it does, the floor under the enqueue; and
 *    the same outbox row written by a hand-written INSERT. Goal, for pg and for postgres.js:
 *    the sale with the enqueue at most 1.15x the sale with the hand-written INSERT, as the
 *    median of each round's ratio of the two, sampled side by side. Each driver is measured on
 *    its own, one after the other, as a POS server uses one. With both drivers' samples in the
 *    same rounds, a sample that came right after another connection's ran faster than the same
 *    sample elsewhere in the round; in every other round that sample was pg's hand-written
 *    INSERT, which read the pg ratio about 0.05 high (the CHANGELOG has the runs' figures).
 * 2. How fast 1 and 4 processes drain the same backlog to a service 20 ms away (a loopback
 *    server that answers every request after 20 ms). One merchant (tenant) by default, with the
 *    default `maxInFlight` (16): one process is held by its cap (16 events per 20 ms at best),
 *    four processes have four times the cap, which is what scale-out is for. The backlog is
 *    enqueued in one open transaction while the drainers already run (idle, listening:
 *    `postgresStore({ listen })`), and its COMMIT starts the clock. The drainers first drain a
 *    warm-up backlog together, untimed (WARM_UP_EVENTS per process, 2,000): a POS server's drainers
 *    run for days, so the timed drain meets warm processes. The table is then vacuumed and
 *    analysed with nothing pending, as autovacuum leaves an outbox at rest: the timed backlog
 *    meets the statistics a backlog after an outage meets (before schema step 9 they made every
 *    outcome scan the whole backlog), and autovacuum does not land in some runs' timed drain and
 *    not others'. Each drain's schema is dropped after it. Reported beside it: the
 *    drainers' CPU per event, PostgreSQL's CPU per event (every backend and auxiliary process of
 *    the cluster, from /proc), the statements the drainers sent per event (each a round trip
 *    and a commit), the claims per event with their mean duration (`pg_stat_user_functions`),
 *    and the whole machine: how busy its cores were and the CPU it spent per event (drainers,
 *    service, PostgreSQL and this bench together, from /proc/stat).
 *    Drainers, service and database share the machine's cores: where they are all busy, the
 *    4-process figure is bounded by that CPU per event, not by how the outbox scales.
 *
 * While tuning: OUTBOX_PG_PART=enqueue|drain runs one comparison; DRAIN_EVENTS, TENANTS,
 * CLAIM_WINDOW, POLL_MS and NO_LISTEN=1 change the backlog, the tenants, the drainers' claim
 * window, poll interval and wake-ups. DRAIN_SENDER=timer answers every send after the same 20 ms
 * by a timer instead of over HTTP (a reference without the HTTP exchange's CPU). DRAIN_PROFILE=<dir>
 * writes each drainer's CPU profile of the timed drain there (`.cpuprofile`, as `node --cpu-prof`).
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Session } from 'node:inspector/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEnvelope, LoyaltyClient } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import { migrate, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import postgres from 'postgres';
import { machineCpu, postgresCpu, statOf, TICK_MICROS } from './cpu.mjs';
import { SECRET } from './fixtures.mjs';
import { goal, median } from './harness.mjs';
import { realServers } from './real-servers.mjs';

/** Settings of this comparison, declared once. */
const SETTINGS = {
  /**
   * Sale transactions per sample, and samples per contender (the median is reported). A sample
   * on a small shared machine can swing by a tenth (a slow fsync, a checkpoint): the median of
   * 41 keeps the ratios within a few hundredths from one run to the next, where 15 did not.
   */
  salesPerSample: 200,
  rounds: 41,
  /**
   * The drain: a merchant's backlog (one tenant: one process is held by its `maxInFlight` cap,
   * the default 16, which is what adding processes lifts), over enough customers that causal
   * order never limits it, and long enough that start-up and JIT warm-up do not dominate.
   */
  drainEvents: Number(process.env.DRAIN_EVENTS ?? 8_000),
  /** Events each drainer process sends, untimed, before the timed drain (its JIT warm-up). */
  warmUpPerProcess: Number(process.env.WARM_UP_EVENTS ?? 2_000),
  tenants: Number(process.env.TENANTS ?? 1),
  customersPerTenant: 1_000,
  latencyMs: 20,
  processes: 4,
  /** Oldest pending rows each claim weighs (undefined: the store's default). */
  claimWindow: process.env.CLAIM_WINDOW ? Number(process.env.CLAIM_WINDOW) : undefined,
};
const SELF = fileURLToPath(import.meta.url);

const payload = (i, customer) => ({
  externalInvoiceId: `inv-${i}`,
  externalCustomerId: customer,
  externalBranchId: 'branch-1',
  subtotalAfterDiscountBeforeVat: 86.96,
  earnType: 'Points',
  stampCardId: null,
  channel: 'Pos',
});

/**
 * Sale transactions with and without the enqueue, interleaved, on one driver; returns µs per
 * transaction. With `pg` (one statement at a time: the enqueue is one more round trip) or with
 * postgres.js, where the sale's INSERT and the enqueue are pipelined in the transaction, as
 * postgres.js does for the queries of `sql.begin(tx => [...])`: the enqueue then adds no round trip.
 */
async function enqueueOverhead(url, { driver, pooled = false, rounds = SETTINGS.rounds }) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // Behind a transaction pooler (`pooled`): postgres.js without prepared statements, and the
  // hand-written statements unnamed, as users must there.
  const sql =
    driver === 'postgres.js'
      ? postgres(url, { max: 1, onnotice: () => undefined, ...(pooled && { prepare: false }) })
      : undefined;
  const schema = `bench_${process.pid}`;
  await migrate(pool, { schema });
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".sales (
    id bigserial PRIMARY KEY, invoice text NOT NULL, customer text NOT NULL, total numeric NOT NULL,
    sold_at timestamptz NOT NULL DEFAULT now())`);
  // Never drained here: the client points nowhere, and the outbox only stores.
  const client = new LoyaltyClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', signingSecret: SECRET });
  const outbox = createOutbox({ client, store: postgresStore(pool, { schema }), pollIntervalMs: 60_000 });
  await outbox.start();
  await outbox.stopTenant('default', 'benchmark: enqueue only');
  const tx = await pool.connect();
  const insertSale = `INSERT INTO "${schema}".sales (invoice, customer, total) VALUES ($1, $2, $3)`;
  // The enqueue's row written by hand, without its key locks and wake-up check: what storing the
  // event costs as such (the same columns, a fresh envelope and eventId each time).
  const plainInsert = `INSERT INTO "${schema}".outbox (event_id, tenant_id, event_type, envelope, enqueued_at, keys_changes, keys_needs)
VALUES ($1, 'default', 'InvoiceEarned', $2::jsonb, $3, $4::text[], '{}')`;
  // The envelope as each driver takes a jsonb parameter: pg sends the JSON text; postgres.js
  // learns the parameter is jsonb and serialises the value itself, so it is given the object
  // (given the text, it would store one JSON string, not the envelope: checked below).
  const rowOf = (i, customer, driver = 'pg') => {
    const envelope = createEnvelope('InvoiceEarned', payload(i, customer));
    return [
      envelope.eventId,
      driver === 'pg' ? JSON.stringify(envelope) : envelope,
      Date.now(),
      [`Customer:${customer}`, `Invoice:inv-${i}`],
    ];
  };
  let n = 0;
  // `with`: nothing more, the enqueue, the same row inserted by hand, or the cheapest statement
  // there is (`SELECT 1`, prepared): one more statement in the transaction, whatever it does, is
  // the floor the enqueue sits on.
  const pgSale = async (extra) => {
    const i = n++;
    const customer = `cust-${i % 50}`;
    await tx.query('BEGIN');
    await tx.query(insertSale, [`inv-${i}`, customer, 86.96]);
    if (extra === 'event') await outbox.enqueue('InvoiceEarned', payload(i, customer), { tx });
    if (extra === 'select')
      await tx.query(pooled ? 'SELECT 1' : { name: 'bench_select_1', text: 'SELECT 1' });
    if (extra === 'insert')
      await tx.query(
        pooled
          ? { text: plainInsert, values: rowOf(i, customer) }
          : { name: 'bench_plain_insert', text: plainInsert, values: rowOf(i, customer) },
      );
    await tx.query('COMMIT');
  };
  const jsSale = (extra) => {
    const i = n++;
    const customer = `cust-${i % 50}`;
    return sql.begin((t) => [
      // Prepared, as a tagged template sql`...` is by default.
      t.unsafe(insertSale, [`inv-${i}`, customer, 86.96], { prepare: true }),
      ...(extra === 'event' ? [outbox.enqueue('InvoiceEarned', payload(i, customer), { tx: t })] : []),
      ...(extra === 'select' ? [t.unsafe('SELECT 1', [], { prepare: true })] : []),
      ...(extra === 'insert'
        ? [t.unsafe(plainInsert, rowOf(i, customer, 'postgres.js'), { prepare: true })]
        : []),
    ]);
  };
  // The enqueue and the hand-written INSERT it is compared with run next to each other, and
  // every other round in the reverse order: a disk that slows down for a few seconds, or an
  // autovacuum of the outbox table, then weighs on both alike rather than on whichever comes
  // at a fixed place in the round.
  const contenders = sql
    ? [
        ['jsSale', () => jsSale()],
        ['jsWithSelect', () => jsSale('select')],
        ['jsWithEvent', () => jsSale('event')],
        ['jsWithInsert', () => jsSale('insert')],
      ]
    : [
        ['pgSale', () => pgSale()],
        ['pgWithSelect', () => pgSale('select')],
        ['pgWithEvent', () => pgSale('event')],
        ['pgWithInsert', () => pgSale('insert')],
      ];
  const samples = Object.fromEntries(contenders.map(([name]) => [name, []]));
  for (let round = -2; round < rounds; round++) {
    for (const [name, sale] of round % 2 ? [...contenders].reverse() : contenders) {
      const started = performance.now();
      for (let i = 0; i < SETTINGS.salesPerSample; i++) await sale();
      // The first two rounds warm up the JIT, the plans and the connection.
      if (round >= 0) samples[name].push(((performance.now() - started) * 1000) / SETTINGS.salesPerSample);
    }
  }
  tx.release();
  // Every contender wrote the same row: an envelope object (not a JSON string) in each.
  const { rows } = await pool.query(
    `SELECT count(*)::integer AS n FROM "${schema}".outbox WHERE jsonb_typeof(envelope) <> 'object'`,
  );
  if (rows[0].n > 0) throw new Error(`${rows[0].n} outbox rows hold something else than an envelope object`);
  await outbox.close();
  await client.close();
  await sql?.end();
  // The drain runs next on this cluster: tables left behind would be autovacuumed during it,
  // and that CPU would count as the drain's.
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.end();
  // The enqueue against the hand-written INSERT: the median of each round's ratio of the two
  // samples taken side by side (a paired comparison), which the machine's slow drifts cancel out of.
  const paired = (a, b) => median(samples[a].map((value, round) => value / samples[b][round]));
  return {
    ...Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])),
    ...(sql
      ? { jsEventOverInsert: paired('jsWithEvent', 'jsWithInsert') }
      : { pgEventOverInsert: paired('pgWithEvent', 'pgWithInsert') }),
  };
}

/** A service 20 ms away: every request is answered 200 after `latencyMs`. */
function serveSlowly() {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-correlation-id': 'bench' });
        res.end('{"status":"accepted"}');
      }, SETTINGS.latencyMs),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('disconnect', () => process.exit(0));
}

/** One drainer process: an outbox on the shared table, until told to stop. */
async function drain(url, schema, origin) {
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // The statements the store sends during the timed drain (claims, outcomes, leases): each is
  // a round trip and a commit.
  let statements = 0;
  let counting = false;
  const query = pool.query.bind(pool);
  pool.query = (...args) => {
    if (counting) statements += 1;
    return query(...args);
  };
  const clients = new Map();
  // DRAIN_SENDER=timer: no HTTP at all, every send answered after the same latency by a timer
  // (a reference: what the drain does when the HTTP exchange costs no CPU on this machine).
  const timer = {
    sendEnvelope: (envelope) =>
      new Promise((resolve) =>
        setTimeout(
          () =>
            resolve({ eventId: envelope.eventId, status: 'accepted', correlationId: 'timer', attempts: 1 }),
          SETTINGS.latencyMs,
        ),
      ),
  };
  const clientFor = (tenantId) => {
    if (process.env.DRAIN_SENDER === 'timer') return timer;
    if (!clients.has(tenantId)) {
      clients.set(
        tenantId,
        new LoyaltyClient({ baseUrl: origin, apiKey: `key-${tenantId}`, signingSecret: SECRET }),
      );
    }
    return clients.get(tenantId);
  };
  // Woken by LISTEN when the backlog commits, then driven by its own answers; the poll is the
  // default. (A 20 ms poll in every drainer made the claims, serialised per schema, the limit:
  // four processes polling 50 times a second each queued behind each other's claims.)
  const listen = new pg.Client({ connectionString: url });
  await listen.connect();
  const outbox = createOutbox({
    clientFor,
    store: postgresStore(pool, {
      schema,
      ...(SETTINGS.claimWindow && { claimWindow: SETTINGS.claimWindow }),
      ...(!process.env.NO_LISTEN && { listen }),
    }),
    concurrency: Math.max(SETTINGS.tenants, 4),
    pollIntervalMs: Number(process.env.POLL_MS ?? 1_000),
  });
  await outbox.start();
  // DRAIN_PROFILE=<dir>: each drainer writes a CPU profile of the timed drain there.
  const profiler = process.env.DRAIN_PROFILE ? new Session() : undefined;
  if (profiler) {
    profiler.connect();
    await profiler.post('Profiler.enable');
  }
  // The CPU this drainer uses during the timed drain (µs; start-up and the warm-up drain left
  // out: paid once per process, not per event), to tell a CPU-bound drain from a latency-bound one.
  let atStart = process.cpuUsage();
  process.send({ ready: true });
  for (;;) {
    const [message] = await once(process, 'message');
    if (message !== 'mark') break;
    atStart = process.cpuUsage();
    counting = true;
    await profiler?.post('Profiler.start');
    process.send({ marked: true });
  }
  const { user, system } = process.cpuUsage(atStart);
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(
      join(process.env.DRAIN_PROFILE, `drainer-${process.pid}.cpuprofile`),
      JSON.stringify(profile),
    );
  }
  process.send({ cpuMicros: user + system, statements });
  await outbox.close();
  for (const client of clients.values()) await client.close();
  await listen.end();
  await pool.end();
  process.exit(0);
}

/** Starts `count` drainers, commits the backlog, and times until no event is pending. */
async function drainRate(url, origin, count, servicePid) {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const schema = `drain_${count}_${process.pid}`;
  await migrate(pool, { schema });
  // Counts and times the claims (the bench's own cluster): how many per event, and their cost.
  await pool.query(`ALTER SYSTEM SET track_functions = 'pl'`);
  await pool.query('SELECT pg_reload_conf()');
  const children = Array.from({ length: count }, () =>
    fork(SELF, ['--drain', url, schema, origin], { stdio: 'inherit' }),
  );
  await Promise.all(children.map((child) => once(child, 'message')));
  // Each backlog commits at once: one transaction, written by an outbox that never sends (its
  // claims run at start, on an empty table, and at its poll, which never comes during the run).
  const writer = createOutbox({
    clientFor: () => ({ sendEnvelope: () => new Promise(() => undefined) }),
    store: postgresStore(pool, { schema }),
    pollIntervalMs: 3_600_000,
  });
  await writer.start();
  let enqueued = 0;
  const backlog = async (events) => {
    const tx = await pool.connect();
    await tx.query('BEGIN');
    for (let n = 0; n < events; n++, enqueued++) {
      const i = enqueued;
      const tenantId = `merchant-${i % SETTINGS.tenants}`;
      const customer = `cust-${Math.floor(i / SETTINGS.tenants) % SETTINGS.customersPerTenant}`;
      await writer.enqueue('InvoiceEarned', payload(i, customer), { tx, tenantId });
    }
    return tx;
  };
  // Whether any event is pending, 50 times a second: one index probe (counting the backlog at
  // every look cost Postgres more CPU than the drain's own statements).
  const pending = async () =>
    (await pool.query(`SELECT EXISTS (SELECT 1 FROM "${schema}".outbox WHERE state = 'pending') AS any`))
      .rows[0].any;
  const drained = async () => {
    while (await pending()) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  // A POS server's drainers run for days: they first drain a warm-up backlog together, so
  // that the timed drain meets warm processes (V8 compiles the drain's paths during a process's
  // first thousand events or so, at about twice the CPU per event), as a long-running one is.
  const warmUp = await backlog(SETTINGS.warmUpPerProcess * count);
  await warmUp.query('COMMIT');
  warmUp.release();
  await drained();
  // As autovacuum leaves a table at rest (see the header); the same table for every timed drain.
  await pool.query(`VACUUM ANALYZE "${schema}".outbox`);
  const marked = children.map((child) => once(child, 'message'));
  for (const child of children) child.send('mark');
  await Promise.all(marked);
  await pool.query('SELECT pg_stat_reset()');
  const tx = await backlog(SETTINGS.drainEvents);
  const { rows: backend } = await pool.query('SELECT pg_backend_pid() AS pid');
  const postmaster = statOf(backend[0].pid).ppid;
  const pgBefore = postgresCpu(postmaster);
  const machineBefore = machineCpu();
  const serviceBefore = statOf(servicePid).self;
  const started = performance.now();
  await tx.query('COMMIT');
  tx.release();
  await writer.close();
  await drained();
  const rate = (SETTINGS.drainEvents * 1000) / (performance.now() - started);
  const pgCpuPerEvent = (postgresCpu(postmaster) - pgBefore) / SETTINGS.drainEvents;
  const machineAfter = machineCpu();
  const serviceCpuPerEvent = ((statOf(servicePid).self - serviceBefore) * TICK_MICROS) / SETTINGS.drainEvents;
  const machineBusy = (machineAfter.busy - machineBefore.busy) / (machineAfter.all - machineBefore.all);
  const machineCpuPerEvent = (machineAfter.busy - machineBefore.busy) / SETTINGS.drainEvents;
  // Statistics reach the view once each backend reports them (at the end of its transactions).
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const { rows: claimStats } = await pool.query(
    `SELECT calls::int, total_time FROM pg_stat_user_functions WHERE schemaname = $1 AND funcname = 'outbox_claim'`,
    [schema],
  );
  const claims = claimStats[0] ?? { calls: 0, total_time: 0 };
  const { rows } = await pool.query(
    `SELECT state, count(*)::int AS n FROM "${schema}".outbox GROUP BY state`,
  );
  if (rows.length !== 1 || rows[0].state !== 'delivered' || rows[0].n !== enqueued)
    throw new Error(`drain ended with ${JSON.stringify(rows)}`);
  const used = children.map((child) => once(child, 'message'));
  for (const child of children) child.send('stop');
  const reports = (await Promise.all(used)).map(([report]) => report);
  const cpuMicros = reports.reduce((sum, report) => sum + report.cpuMicros, 0);
  const statements = reports.reduce((sum, report) => sum + report.statements, 0);
  await Promise.all(children.map((child) => once(child, 'exit')));
  // The next drain runs on this cluster: this one's rows must not be autovacuumed during it.
  await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
  await pool.end();
  return {
    rate,
    cpuPerEvent: cpuMicros / SETTINGS.drainEvents,
    pgCpuPerEvent,
    machineBusy,
    machineCpuPerEvent,
    serviceCpuPerEvent,
    claimsPerEvent: claims.calls / SETTINGS.drainEvents,
    msPerClaim: claims.calls ? claims.total_time / claims.calls : 0,
    statementsPerEvent: statements / SETTINGS.drainEvents,
  };
}

export async function run() {
  const { startPostgres, startPgBouncer, cleanUp } = await realServers();
  const durable = process.env.DATABASE_URL
    ? { url: process.env.DATABASE_URL, stop() {} }
    : await startPostgres({ durable: true });
  const fast = process.env.DATABASE_URL ? durable : await startPostgres();
  const server = fork(SELF, ['--serve'], { stdio: 'inherit' });
  try {
    // OUTBOX_PG_PART=enqueue or =drain runs one comparison only (while tuning one of them).
    const part = process.env.OUTBOX_PG_PART;
    const skipped = {
      pgSale: 0,
      pgWithEvent: 0,
      pgWithSelect: 0,
      pgWithInsert: 0,
      jsSale: 0,
      jsWithEvent: 0,
      jsWithSelect: 0,
      jsWithInsert: 0,
      pgEventOverInsert: Number.NaN,
      jsEventOverInsert: Number.NaN,
    };
    // Each driver on its own, as a POS server uses one (why: the comment at the top).
    const bothDrivers = async (url, options) => ({
      ...(await enqueueOverhead(url, { ...options, driver: 'pg' })),
      ...(await enqueueOverhead(url, { ...options, driver: 'postgres.js' })),
    });
    const onDisk = part === 'drain' ? skipped : await bothDrivers(durable.url, {});
    const noFsync = part === 'drain' ? skipped : await enqueueOverhead(fast.url, { driver: 'pg' });
    // The same sale through PgBouncer in transaction mode (report only: no goal yet), where
    // PgBouncer is installed; fewer rounds, the pooler's hop dominating both sides alike.
    let pooled = skipped;
    if (part !== 'drain' && !process.env.DATABASE_URL) {
      const bouncer = await startPgBouncer(durable.url, { mode: 'transaction' }).catch(() => undefined);
      if (bouncer) {
        try {
          pooled = await bothDrivers(bouncer.url, { pooled: true, rounds: 11 });
        } finally {
          await bouncer.stop();
        }
      }
    }
    // Done with the durable cluster: its checkpoint of the sales above must not share the cores
    // with the drain.
    if (!process.env.DATABASE_URL) await durable.stop();
    const [{ port }] = await once(server, 'message');
    const origin = `http://127.0.0.1:${port}`;
    const none = {
      rate: 0,
      cpuPerEvent: 0,
      pgCpuPerEvent: 0,
      machineBusy: 0,
      machineCpuPerEvent: 0,
      serviceCpuPerEvent: 0,
      claimsPerEvent: 0,
      msPerClaim: 0,
      statementsPerEvent: 0,
    };
    const oneRun = part === 'enqueue' ? none : await drainRate(fast.url, origin, 1, server.pid);
    const manyRun =
      part === 'enqueue' ? none : await drainRate(fast.url, origin, SETTINGS.processes, server.pid);
    const [one, many] = [oneRun.rate, manyRun.rate];
    const overhead = onDisk.pgWithEvent / onDisk.pgSale - 1;
    const jsOverhead = onDisk.jsWithEvent / onDisk.jsSale - 1;
    return {
      sections: [
        {
          title: 'one-row sale transaction, µs (median)',
          unit: 'µs',
          rows: [
            { name: 'pg: sale alone, default durability', value: onDisk.pgSale },
            { name: 'pg: sale + enqueue({ tx }), default durability', value: onDisk.pgWithEvent },
            { name: 'pg: sale + SELECT 1 (one more statement: the floor)', value: onDisk.pgWithSelect },
            {
              name: 'pg: sale + a plain INSERT of the same outbox row (no key locks, no wake-up check)',
              value: onDisk.pgWithInsert,
            },
            { name: 'postgres.js: sale alone, default durability', value: onDisk.jsSale },
            {
              name: 'postgres.js: sale + enqueue({ tx }) pipelined, default durability',
              value: onDisk.jsWithEvent,
            },
            { name: 'postgres.js: sale + SELECT 1 pipelined (the floor)', value: onDisk.jsWithSelect },
            {
              name: 'postgres.js: sale + a plain INSERT of the same outbox row, pipelined',
              value: onDisk.jsWithInsert,
            },
            { name: 'pg: sale alone, fsync off', value: noFsync.pgSale },
            { name: 'pg: sale + enqueue({ tx }), fsync off', value: noFsync.pgWithEvent },
          ],
        },
        {
          title:
            'through PgBouncer in transaction mode, default durability: sale + enqueue({ tx }) / sale + a hand-written INSERT (report only)',
          unit: 'x',
          rows: [
            { name: 'pg (statements unnamed)', value: pooled.pgEventOverInsert },
            {
              name: 'postgres.js, prepare: false, pipelined',
              value: pooled.jsEventOverInsert,
            },
          ].filter((row) => Number.isFinite(row.value)),
        },
        {
          // The enqueue cannot cost less than one statement more in the transaction: the floor.
          title:
            'what it adds to the sale, default durability: the enqueue, and any one statement more (SELECT 1), %',
          unit: '%',
          rows: [
            { name: 'pg: enqueue({ tx })', value: overhead * 100 },
            { name: 'pg: SELECT 1', value: (onDisk.pgWithSelect / onDisk.pgSale - 1) * 100 },
            {
              name: 'pg: a plain INSERT of the same row',
              value: (onDisk.pgWithInsert / onDisk.pgSale - 1) * 100,
            },
            { name: 'postgres.js: enqueue({ tx }) pipelined', value: jsOverhead * 100 },
            {
              name: 'postgres.js: SELECT 1 pipelined',
              value: (onDisk.jsWithSelect / onDisk.jsSale - 1) * 100,
            },
            {
              name: 'postgres.js: a plain INSERT of the same row, pipelined',
              value: (onDisk.jsWithInsert / onDisk.jsSale - 1) * 100,
            },
          ].filter((row) => Number.isFinite(row.value)),
        },
        {
          title: `drain ${SETTINGS.drainEvents} events, ${SETTINGS.tenants} tenant(s), maxInFlight 16, service ${SETTINGS.latencyMs} ms away`,
          unit: 'events/s',
          rows: [
            { name: '1 process', opsPerSec: one },
            { name: `${SETTINGS.processes} processes`, opsPerSec: many },
          ],
        },
        {
          title: 'drainer CPU per delivered event during the drain (all drainers), µs',
          unit: 'µs',
          rows: [
            { name: '1 process', value: oneRun.cpuPerEvent },
            { name: `${SETTINGS.processes} processes`, value: manyRun.cpuPerEvent },
          ],
        },
        {
          title: 'PostgreSQL CPU per delivered event during the drain (every backend), µs',
          unit: 'µs',
          rows: [
            { name: '1 process', value: oneRun.pgCpuPerEvent },
            { name: `${SETTINGS.processes} processes`, value: manyRun.pgCpuPerEvent },
          ],
        },
        {
          // Drainers, PostgreSQL, the service and the bench on one machine: a drain that keeps
          // every core busy is bounded by the CPU all of them spend per event, not by the outbox's
          // design; 3x the one-process rate needs at most (cores / (3 x that rate)) per event.
          title: 'the whole machine during the drain: cores busy (%) and CPU per delivered event (µs)',
          unit: '',
          rows: [
            { name: '1 process: cores busy, %', value: oneRun.machineBusy * 100 },
            { name: `${SETTINGS.processes} processes: cores busy, %`, value: manyRun.machineBusy * 100 },
            { name: '1 process: CPU per event, µs', value: oneRun.machineCpuPerEvent },
            { name: `${SETTINGS.processes} processes: CPU per event, µs`, value: manyRun.machineCpuPerEvent },
            { name: "1 process: the service stand-in's part, µs", value: oneRun.serviceCpuPerEvent },
            {
              name: `${SETTINGS.processes} processes: the service stand-in's part, µs`,
              value: manyRun.serviceCpuPerEvent,
            },
            {
              name: `CPU per event that ${SETTINGS.processes} processes at 3x one could spend, µs`,
              value: oneRun.rate > 0 ? (cpus().length * 1_000_000) / (3 * oneRun.rate) : 0,
            },
          ],
        },
        {
          title:
            "the drainers' statements per delivered event (claims, outcomes, leases), claims per event, ms per claim",
          unit: '',
          rows: [
            { name: '1 process: statements per event', value: oneRun.statementsPerEvent },
            {
              name: `${SETTINGS.processes} processes: statements per event`,
              value: manyRun.statementsPerEvent,
            },
            { name: '1 process: claims per event', value: oneRun.claimsPerEvent },
            { name: `${SETTINGS.processes} processes: claims per event`, value: manyRun.claimsPerEvent },
            { name: '1 process: ms per claim', value: oneRun.msPerClaim },
            { name: `${SETTINGS.processes} processes: ms per claim`, value: manyRun.msPerClaim },
          ],
        },
      ],
      goals: [
        // What storing the event in the sale's transaction costs, against writing the same row
        // by hand: the key locks, the wake-up check and the same-database guard ride on it.
        goal(
          'sale + enqueue({ tx }) / sale + a hand-written INSERT of the row (pg, default durability)',
          onDisk.pgEventOverInsert,
          1.15,
          { atMost: true },
        ),
        goal(
          'sale + enqueue({ tx }) / sale + a hand-written INSERT of the row (postgres.js, pipelined)',
          onDisk.jsEventOverInsert,
          1.15,
          { atMost: true },
        ),
        goal(`drain with ${SETTINGS.processes} processes vs 1, 20 ms away`, many / one, 3),
      ].filter((g) => Number.isFinite(g.value)),

      ratios: {
        onDisk,
        noFsync,
        pooled,
        overhead,
        jsOverhead,
        noFsyncOverhead: noFsync.pgWithEvent / noFsync.pgSale - 1,
        one,
        many,
      },
    };
  } finally {
    server.disconnect();
    await durable.stop();
    if (fast !== durable) await fast.stop();
    await cleanUp();
  }
}

if (process.argv[2] === '--serve') serveSlowly();
if (process.argv[2] === '--drain') await drain(process.argv[3], process.argv[4], process.argv[5]);
