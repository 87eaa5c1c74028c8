import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, expect } from 'vitest';
import { SCHEMA_STEPS } from '../../../src/postgres/schema/steps.js';
import { bundleSdk } from '../../support/bundle-sdk.js';
import { collectOutput } from '../../support/child-lines.js';
import { signedDelivery } from '../../webhooks/support/deliveries.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/receiver-child.mjs', import.meta.url));
const MIGRATE_CHILD = fileURLToPath(new URL('../fixtures/migrate-child.mjs', import.meta.url));

/**
 * Bundles the public entry points the receiver child uses, from src/, into one ESM file, so the
 * child needs neither tsx nor `npm run build`. No driver is in the bundle: the stores take the
 * child's own clients.
 */
export async function bundleReceiverSdk(outfile: string): Promise<void> {
  await bundleSdk(outfile, {
    'loyalty-partner-sdk/webhooks': ['createReceiver'],
    'loyalty-partner-sdk/node': ['createNodeListener'],
    'loyalty-partner-sdk/postgres': ['migrate', 'postgresInbox'],
    'loyalty-partner-sdk/redis': ['redisInbox'],
  });
}

/**
 * For a describe block whose tests start receiver children: a pool for the test's own queries and,
 * once `beforeAll` ran, the bundle the children load (`bundle()`); both are gone after the block.
 */
export function useReceiverBundle(postgresUrl: string, max: number): { pool: pg.Pool; bundle: () => string } {
  const pool = new pg.Pool({ connectionString: postgresUrl, max });
  let work: string | undefined;
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'loyalty-receivers-'));
    await bundleReceiverSdk(join(work, 'sdk.mjs'));
  });
  afterAll(async () => {
    await pool.end();
    if (work) await rm(work, { recursive: true, force: true });
  });
  return {
    pool,
    bundle: () => {
      if (!work) throw new Error('the receiver bundle is made in beforeAll');
      return join(work, 'sdk.mjs');
    },
  };
}

/**
 * Runs `migrate` in one child process per entry of `targets` (`[driver, url, 'pooled'?]`), all
 * told to go together once every one is connected. Resolves with each child's exit code, its
 * stderr and its printed result (`{ version, applied }`).
 */
export async function migrateAtOnce(bundle: string, schema: string, targets: readonly string[][]) {
  const children = targets.map(([driver, url, ...rest]) => {
    const child = spawn(process.execPath, [MIGRATE_CHILD, bundle, driver!, url!, schema, ...rest], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const { stdout, stderr } = collectOutput(child);
    return { child, out: stdout, err: stderr, exit: once(child, 'exit') };
  });
  while (!children.every((c) => c.out().includes('READY') || c.child.exitCode !== null)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  for (const c of children) c.child.stdin.end('go\n');
  const codes = await Promise.all(children.map((c) => c.exit.then(([code]) => code)));
  return {
    codes,
    stderr: children.map((c) => c.err()),
    results: children.map(
      (c) => JSON.parse(c.out().split('\n')[1]!) as { version: number; applied: number[] },
    ),
  };
}

/** Every child of {@link migrateAtOnce} succeeded, and exactly one applied every step. */
export function expectOneMigrator(run: Awaited<ReturnType<typeof migrateAtOnce>>): void {
  const latest = Math.max(...SCHEMA_STEPS.map((step) => step.version));
  expect(run.stderr).toEqual(run.codes.map(() => ''));
  expect(run.codes).toEqual(run.codes.map(() => 0));
  expect(run.results.filter((r) => r.applied.length > 0)).toEqual([
    { version: latest, applied: SCHEMA_STEPS.map((step) => step.version) },
  ]);
  expect(run.results.every((r) => r.version === latest)).toBe(true);
}

/** SIGKILLs `children[index]` and puts the child `start` gives in its place. */
export async function killAndRestart(children: Child[], index: number, start: () => Promise<Child>) {
  children[index]!.child.kill('SIGKILL');
  await once(children[index]!.child, 'exit');
  children[index] = await start();
}

/** A child started by {@link startChild}: its process and the URL it listens on. */
export interface Child {
  child: ChildProcess;
  url: string;
}

/** Starts `script` (a fixture that prints `READY <port>`) with the bundle and its config. */
export async function startChild(script: string, bundle: string, config: object): Promise<Child> {
  const child = spawn(process.execPath, [script, bundle, JSON.stringify(config)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.setEncoding('utf8');
  for await (const chunk of child.stdout!) {
    out += chunk;
    const ready = /READY (\d+)/.exec(out);
    if (ready) return { child, url: `http://127.0.0.1:${ready[1]}/` };
  }
  throw new Error(`${script} exited before it was ready`);
}

export const stopChild = async ({ child }: Child) => {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
};

/**
 * Posts like the service until a 200: a refused connection (a killed process) is tried on the
 * next child. Each answer's wait is pushed to `times`, when given.
 */
export async function deliverToChildren(
  children: Child[],
  first: number,
  delivery: { headers: Record<string, string>; rawBody: string },
  times?: number[],
): Promise<number> {
  for (let k = 0; ; k++) {
    const target = children[(first + k) % children.length]!;
    const started = performance.now();
    try {
      const response = await fetch(target.url, {
        method: 'POST',
        headers: delivery.headers,
        body: delivery.rawBody,
      });
      await response.text();
      times?.push(performance.now() - started);
      if (response.status === 200) return 200;
    } catch {
      // connection refused or reset: the process is down
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * The process suites' load: four receiver processes, 300 deliveries, each posted three times at
 * once, twenty under way at a time.
 */
export const PROCESSES = 4;
export const DELIVERIES = 300;
export const COPIES = 3;
const AT_ONCE = 20;

/**
 * Posts each event's signed delivery `COPIES` times at once, each copy to another child,
 * `AT_ONCE` deliveries under way at a time, and expects every copy answered 200. With `restart`,
 * child 0 is SIGKILLed halfway and replaced by `restart()`. Resolves with whether it was.
 */
export async function deliverThreeTimesAtOnce(
  children: Child[],
  events: readonly object[],
  options: { restart?: () => Promise<Child>; times?: number[] } = {},
): Promise<{ killed: boolean }> {
  let next = 0;
  let killed = false;
  const lane = async () => {
    for (let i = next++; i < events.length; i = next++) {
      if (options.restart && !killed && i >= events.length / 2) {
        killed = true;
        await killAndRestart(children, 0, options.restart);
      }
      const delivery = signedDelivery(events[i]!);
      const answers = await Promise.all(
        Array.from({ length: COPIES }, (_, c) => deliverToChildren(children, i + c, delivery, options.times)),
      );
      expect(answers).toEqual([200, 200, 200]);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
  return { killed };
}

/** How one receiver child is configured (see fixtures/receiver-child.mjs). */
export interface ReceiverConfig {
  store: 'postgres' | 'redis';
  driver: 'pg' | 'postgres.js' | 'ioredis' | 'node-redis';
  transactional?: boolean;
  postgresUrl: string;
  redisUrl?: string;
  schema: string;
  prefix?: string;
  secret: string;
  handlerDelayMs: number;
  crashOn?: string;
}

export interface ReceiverProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves once the child printed `line`. */
  printed(line: string): Promise<void>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts one receiver child and waits until it listens. */
export async function startReceiver(bundle: string, config: ReceiverConfig): Promise<ReceiverProcess> {
  const child = spawn(process.execPath, [CHILD, bundle, JSON.stringify(config)], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiters: Array<() => void> = [];
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const printed = async (prefix: string): Promise<string> => {
    for (;;) {
      const line = stdout.split('\n').find((l) => l.startsWith(prefix));
      if (line !== undefined) return line;
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`receiver child exited before printing ${prefix}: ${stderr}`);
      }
      await Promise.race([new Promise<void>((resolve) => waiters.push(resolve)), exited]);
    }
  };
  const ready = await printed('READY ');
  return {
    child,
    url: `http://127.0.0.1:${ready.slice('READY '.length)}/`,
    printed: async (line) => {
      await printed(line);
    },
    stderr: () => stderr,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}
