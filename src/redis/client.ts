import { RedisStoreError } from './errors.js';

/**
 * The part of an ioredis client (`Redis` or `Cluster`) the stores use. Structural, so the
 * published types need no ioredis installed.
 */
export interface IoRedisLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  readonly status: string;
}

/**
 * The part of a node-redis v4+ client (`createClient()`) the stores use.
 */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
  readonly isOpen: boolean;
}

/**
 * What the Redis stores accept: an ioredis client or a node-redis v4+ client (connected).
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import type { RedisLike } from 'loyalty-partner-sdk/redis';
 * const redis: RedisLike = new Redis('redis://127.0.0.1:6379');
 * ```
 */
export type RedisLike = IoRedisLike | NodeRedisLike;

/** One function over both clients: a command as strings, its reply as the client gives it. */
export type RedisCommand = (args: string[]) => Promise<unknown>;

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === 'function';

/**
 * How long one command may take. A client whose server is down queues commands until it comes
 * back (ioredis) or a stalled server answers late: a delivery must not wait for that, so past this
 * the store fails (`UNREACHABLE`) and the receiver answers 503, which the service retries.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 3_000;

/** Eviction policies under which Redis may drop the stores' keys (they all carry a TTL). */
const EVICTING = /^(allkeys|volatile)-/;

/**
 * Recognises the client by its shape (no driver is imported), and bounds each command's wait.
 *
 * A node-redis client without an `error` listener ends the process when its connection fails;
 * the store adds one when the client has none (the failure still reaches the store's caller as an
 * error of the command). At the first command, the store asks Redis for its eviction policy once
 * (`CONFIG GET`, where the server allows it) and warns when it may evict keys: an evicted claim or
 * done marker lets a handler run twice.
 *
 * @throws {RedisStoreError} `NOT_A_CLIENT`
 */
export function toRedisCommand(redis: unknown, what: string): RedisCommand {
  const send = clientCommand(redis, what);
  keepAliveOnError(redis);
  let policyChecked = false;
  return (args) => {
    if (!policyChecked) {
      policyChecked = true;
      warnIfEvicting(send, what);
    }
    return withTimeout(send(args), what, args[0] ?? '');
  };
}

function clientCommand(redis: unknown, what: string): RedisCommand {
  const candidate = redis as Record<string, unknown> | null | undefined;
  if (candidate && typeof candidate === 'object') {
    // ioredis has a `sendCommand` too, taking a Command object: test for `call` first.
    if (isFunction(candidate.call) && typeof candidate.status === 'string') {
      const client = candidate as unknown as IoRedisLike;
      return ([command, ...args]) => client.call(command as string, ...args);
    }
    if (isFunction(candidate.sendCommand)) {
      const client = candidate as unknown as NodeRedisLike;
      return (args) => client.sendCommand(args);
    }
  }
  throw new RedisStoreError(
    'NOT_A_CLIENT',
    `${what}: redis must be an ioredis client (new Redis(url)) or a connected node-redis client (await createClient({ url }).connect())`,
  );
}

function keepAliveOnError(redis: unknown): void {
  const emitter = redis as { on?: unknown; listenerCount?: unknown };
  if (!isFunction(emitter.on) || !isFunction(emitter.listenerCount)) return;
  const count = (emitter.listenerCount as (event: string) => number).call(redis, 'error');
  if (count === 0)
    (emitter.on as (event: string, listener: () => void) => void).call(redis, 'error', () => {});
}

function withTimeout(reply: Promise<unknown>, what: string, command: string): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new RedisStoreError(
            'UNREACHABLE',
            `${what}: Redis did not answer ${command} within ${REDIS_COMMAND_TIMEOUT_MS} ms`,
          ),
        ),
      REDIS_COMMAND_TIMEOUT_MS,
    );
  });
  // A reply that comes after the deadline is dropped, its rejection included.
  reply.catch(() => undefined);
  return Promise.race([reply, late]).finally(() => clearTimeout(timer));
}

function warnIfEvicting(send: RedisCommand, what: string): void {
  send(['CONFIG', 'GET', 'maxmemory-policy']).then(
    (reply) => {
      const values = Array.isArray(reply) ? reply : Object.values((reply as Record<string, unknown>) ?? {});
      const policy = values.map(String).find((value) => value !== 'maxmemory-policy');
      if (policy !== undefined && EVICTING.test(policy)) {
        const emit = (
          globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }
        ).process?.emitWarning;
        emit?.(
          `${what}: Redis runs with maxmemory-policy ${policy}, which may evict the inbox's claims and done markers ` +
            '(a handler would then run twice): use maxmemory-policy noeviction for the Redis that holds them',
          { code: 'LOYALTY_REDIS_EVICTION' },
        );
      }
    },
    // Managed Redis often refuses CONFIG: nothing is known, nothing is said.
    () => undefined,
  );
}

/** Runs a Lua script with one key (EVAL; Redis caches the compiled script by its text). */
export const evalScript = (command: RedisCommand, script: string, key: string, args: (string | number)[]) =>
  command(['EVAL', script, '1', key, ...args.map(String)]);
