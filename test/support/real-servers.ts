import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { createServer, Socket } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Starts and stops the real servers that the store tests need: a PostgreSQL cluster and a Redis
 * server, each on loopback, on a free port, in a temporary directory that is removed afterwards.
 * Used once per test run by `test/support/global-setup.ts`; slower suites (`test:apps`, the node
 * version script) and benchmarks call it directly.
 *
 * Postgres refuses to run as root, so as root the cluster runs as the `postgres` user that the
 * Debian package creates (or `nobody`).
 */
export interface RealServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` or `redis://127.0.0.1:<port>`. */
  readonly url: string;
  stop(): Promise<void>;
  /** PostgreSQL only: a fast restart on the same port and data, as a failover looks to clients. */
  restart?(): Promise<void>;
  /** Redis only: stops the server's process where it stands (SIGSTOP) or lets it go on (SIGCONT). */
  stall?(stalled: boolean): void;
}

/** What to install when a binary is missing: named once, for every message. */
export const SERVER_PACKAGES = 'apt-get install -y postgresql redis-server';

/** Set by `.ci/run`: a missing server is then a failure, never a skipped suite. */
export const REQUIRE_SERVERS_VARIABLE = 'LOYALTY_REQUIRE_REAL_SERVERS';

export const serversRequired = (): boolean => process.env[REQUIRE_SERVERS_VARIABLE] === '1';

/** The directory of `initdb` and `pg_ctl`: on PATH, else Debian's versioned directory. */
export function findPostgresBin(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl'))) return dir;
  }
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian)
    .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(debian, versions[0], 'bin');
}

export function findRedisServer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/bin', '/usr/local/bin']) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return undefined;
}

/** A loopback port nobody listens on: bound, read, released. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** As root, the user the cluster runs as: Postgres will not start as root. */
async function postgresUser(): Promise<{ name: string; uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number((await run('id', ['-u', name])).stdout.trim());
      const gid = Number((await run('id', ['-g', name])).stdout.trim());
      return { name, uid, gid };
    } catch {}
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL');
}

/**
 * A fresh PostgreSQL cluster on loopback, trust authentication, no fsync (a test cluster that is
 * thrown away; `durable: true` keeps Postgres's defaults), `max_connections` high enough for the
 * multi-process tests.
 */
export async function startPostgres(
  options: { maxConnections?: number; durable?: boolean } = {},
): Promise<RealServer> {
  const bin = findPostgresBin();
  if (!bin) throw new Error(`PostgreSQL binaries not found: ${SERVER_PACKAGES}`);
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-pg-'));
  const user = await postgresUser();
  if (user) {
    await chown(dir, user.uid, user.gid);
    await chmod(dir, 0o700);
  }
  const as = async (file: string, args: string[]) => {
    const command = user ? 'runuser' : join(bin, file);
    const argv = user ? ['-u', user.name, '--', join(bin, file), ...args] : args;
    return run(command, argv, { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  };
  const data = join(dir, 'data');
  await as('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // `durable`: Postgres's own defaults, as a production server runs (benchmarks of commits).
    ...(options.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
    `-c max_connections=${options.maxConnections ?? 300}`,
  ].join(' ');
  await as('pg_ctl', ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      await as('pg_ctl', [
        '-D',
        data,
        '-o',
        settings,
        '-l',
        join(dir, 'server.log'),
        '-m',
        'fast',
        '-w',
        'restart',
      ]);
    },
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis server on loopback without persistence. */
export async function startRedis(): Promise<RealServer> {
  const binary = findRedisServer();
  if (!binary) throw new Error(`redis-server not found: ${SERVER_PACKAGES}`);
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-redis-'));
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  child.unref();
  await waitForPort(port, 20_000);
  return {
    url: `redis://127.0.0.1:${port}`,
    stall(stalled) {
      child.kill(stalled ? 'SIGSTOP' : 'SIGCONT');
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      if (child.exitCode === null && child.signalCode === null) await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
      socket.connect(port, '127.0.0.1');
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A Redis Cluster on loopback: three masters, no replicas, each with its own port and bus port. */
export interface RealRedisCluster {
  /** Where each master listens: what ioredis `new Cluster(nodes)` takes. */
  readonly nodes: readonly { host: string; port: number }[];
  /** `redis://127.0.0.1:<port>` of each master: what node-redis `createCluster({ rootNodes })` takes. */
  readonly urls: readonly string[];
  stop(): Promise<void>;
}

/**
 * Three `redis-server --cluster-enabled yes` joined by `redis-cli --cluster create`, ready once
 * every node says `cluster_state:ok`. Started by the tests that need it (a second or two), not by
 * the global setup.
 */
export async function startRedisCluster(): Promise<RealRedisCluster> {
  // A free port is free when it is picked, not when the server binds it: suites that start
  // servers side by side may pick the same one. A node that never listens, or that stopped
  // listening before `--cluster create` reached it (its main or bus port was another's: it
  // exited, and what answered was the other listener), means another took its port: the cluster
  // starts again on fresh ports (a race of the helper, not of a test).
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedisClusterOnce();
    } catch (err) {
      if (attempt >= 3 || !/nothing listens|Could not connect/.test((err as Error).message)) throw err;
    }
  }
}

async function startRedisClusterOnce(): Promise<RealRedisCluster> {
  const binary = findRedisServer();
  if (!binary) throw new Error(`redis-server not found: ${SERVER_PACKAGES}`);
  const cli = join(binary, '..', 'redis-cli');
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  const stop = async () => {
    await Promise.all(
      children.map((child) => {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        return child.exitCode === null && child.signalCode === null ? exited : undefined;
      }),
    );
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let i = 0; i < 3; i++) {
      const [port, bus] = [await freePort(), await freePort()];
      ports.push(port);
      const child = spawn(
        binary,
        [
          ...['--port', String(port), '--cluster-port', String(bus), '--bind', '127.0.0.1'],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`],
          ...['--save', '', '--appendonly', 'no', '--dir', dir],
        ],
        { stdio: 'ignore' },
      );
      child.unref();
      children.push(child);
    }
    for (const [i, port] of ports.entries()) {
      const child = children[i]!;
      const gone = new Promise<never>((_, reject) =>
        child.once('exit', () =>
          reject(new Error(`nothing listens on 127.0.0.1:${port}: the server exited`)),
        ),
      );
      gone.catch(() => undefined);
      await Promise.race([waitForPort(port, 20_000), gone]);
    }
    // `--cluster create` ends with a check of its own that fails when the nodes have not yet
    // agreed on the configuration (gossip is slow on a loaded machine), though the slots are
    // assigned: as Redis's own tests do, the cluster's state decides, and what create printed is
    // kept for the error when the cluster never comes up.
    const created = await run(cli, [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]).then(
      ({ stdout }) => stdout,
      (err: { stdout?: string; stderr?: string; message: string }) => {
        const said = `${err.stdout ?? ''}${err.stderr ?? ''}`;
        if (/Could not connect/.test(said)) throw new Error(`Could not connect: ${said}`);
        return said || err.message;
      },
    );
    const deadline = Date.now() + 30_000;
    for (const port of ports) {
      for (;;) {
        const { stdout } = await run(cli, ['-p', String(port), 'cluster', 'info']);
        if (stdout.includes('cluster_state:ok')) break;
        if (Date.now() > deadline) {
          throw new Error(
            `Redis Cluster node ${port} not ready: ${stdout}\n--cluster create said: ${created}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    stop,
  };
}

/** PgBouncer's binary: on PATH, else where Debian's package puts it. */
export function findPgBouncer(): string | undefined {
  for (const dir of [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/bin']) {
    if (dir && existsSync(join(dir, 'pgbouncer'))) return join(dir, 'pgbouncer');
  }
  return undefined;
}

/**
 * PgBouncer on loopback, on a free port, in front of the PostgreSQL at `postgresUrl` (every
 * database of it), trust authentication for the URL's user, in `mode`: `transaction` is what
 * Supabase's, Neon's and Heroku's poolers run. The URL returned has the same user and database.
 * As root it runs as the `postgres` user (PgBouncer refuses root).
 */
export async function startPgBouncer(
  postgresUrl: string,
  options: { mode: 'transaction' | 'session'; poolSize?: number },
): Promise<RealServer> {
  const binary = findPgBouncer();
  if (!binary) throw new Error('pgbouncer not found: apt-get install -y pgbouncer');
  const target = new URL(postgresUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = await mkdtemp(join(tmpdir(), 'loyalty-pgbouncer-'));
  const port = await freePort();
  const { writeFile } = await import('node:fs/promises');
  await writeFile(join(dir, 'users.txt'), `"${user}" ""\n`);
  await writeFile(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=${target.hostname} port=${target.port || 5432}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      `pool_mode = ${options.mode}`,
      'max_client_conn = 1000',
      `default_pool_size = ${options.poolSize ?? 20}`,
      // postgres.js sends it at start-up; PgBouncer refuses unknown start-up parameters.
      'ignore_startup_parameters = extra_float_digits',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      '',
    ].join('\n'),
  );
  const runAs = await postgresUser();
  if (runAs) {
    for (const file of ['', 'users.txt', 'pgbouncer.ini']) await chown(join(dir, file), runAs.uid, runAs.gid);
  }
  const child: ChildProcess = spawn(binary, [join(dir, 'pgbouncer.ini')], {
    stdio: 'ignore',
    ...(runAs && { uid: runAs.uid, gid: runAs.gid }),
  });
  child.unref();
  await waitForPort(port, 20_000);
  target.port = String(port);
  target.hostname = '127.0.0.1';
  return {
    url: target.toString(),
    async stop() {
      // Held by the event loop until it is gone (it was unref'd so as not to keep a run alive).
      child.ref();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      if (child.exitCode === null && child.signalCode === null) await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
