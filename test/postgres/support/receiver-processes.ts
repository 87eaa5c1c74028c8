import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { bundleSdk } from '../../support/bundle-sdk.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('../fixtures/receiver-child.mjs', import.meta.url));

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
