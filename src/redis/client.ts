import { DeadlinePassed, withDeadline } from '../internal/deadline.js';
import { warn } from '../internal/warn.js';
import { RedisStoreError } from './errors.js';

/** The part of an ioredis client (`Redis` or `Cluster`) the stores use; structural, no ioredis needed. */
export interface IoRedisLike {
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  readonly status: string;
}

/** The part of a node-redis v4+ client (`createClient()`) the stores use. */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
  readonly isOpen: boolean;
}

/** The part of a node-redis v4+ cluster (`createCluster()`) the stores use. */
export interface NodeRedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  readonly isOpen: boolean;
  readonly masters: readonly unknown[];
}

/**
 * What the Redis stores accept: an ioredis `Redis` or `Cluster`, or a connected node-redis v4+
 * client or cluster.
 *
 * @example
 * ```ts
 * import { Redis } from 'ioredis';
 * import type { RedisLike } from 'loyalty-partner-sdk/redis';
 * const redis: RedisLike = new Redis('redis://127.0.0.1:6379');
 * ```
 */
export type RedisLike = IoRedisLike | NodeRedisLike | NodeRedisClusterLike;

/** One function over every client; `key`, the command's first key, routes it on a cluster. */
export type RedisCommand = (args: string[], key?: string) => Promise<unknown>;

const isFunction = (value: unknown): value is (...args: never[]) => unknown => typeof value === 'function';

/** Past this a command fails `UNREACHABLE` (a 503): ioredis queues commands while Redis is down. */
const REDIS_COMMAND_TIMEOUT_MS = 3_000;

const ACCEPTED =
  'pass an ioredis client (new Redis(url) or new Cluster(nodes)) or a connected node-redis v4+ client ' +
  '(await createClient({ url }).connect() or await createCluster({ rootNodes }).connect())';

/**
 * Recognises the client by its shape and bounds each command's wait; gives a client without an
 * `error` listener one (node-redis would end the process), reconnects on `READONLY` after a
 * failover, and warns once when Redis may evict keys.
 *
 * @throws {RedisStoreError} `NOT_A_CLIENT`
 */
export function toRedisCommand(redis: unknown, what: string): RedisCommand {
  const send = clientCommand(redis, what);
  keepAliveOnError(redis);
  const readonly = reconnectOnReadonly(redis);
  let policyChecked = false;
  return async (args, key) => {
    if (!policyChecked) {
      policyChecked = true;
      warnIfEvicting(send, what);
    }
    try {
      return await withDeadline(send(args, key).catch(readonly), REDIS_COMMAND_TIMEOUT_MS);
    } catch (err) {
      if (!(err instanceof DeadlinePassed)) throw err;
      throw new RedisStoreError(
        'UNREACHABLE',
        `${what}: Redis did not answer ${args[0]} within ${err.ms} ms`,
      );
    }
  };
}

function clientCommand(redis: unknown, what: string): RedisCommand {
  const candidate = redis as Record<string, unknown> | null | undefined;
  if (candidate && typeof candidate === 'object') {
    // ioredis has a `sendCommand` too, taking a Command object: test for `call` first. Its
    // Cluster routes each command by the keys it declares (EVAL's KEYS included).
    if (isFunction(candidate.call) && typeof candidate.status === 'string') {
      const client = candidate as unknown as IoRedisLike;
      return ([command, ...args]) => client.call(command as string, ...args);
    }
    if (isFunction(candidate.sendCommand)) {
      // node-redis v4's legacyMode answers through callbacks: its promise client is `.v4`.
      if ((candidate.options as { legacyMode?: unknown })?.legacyMode) {
        throw new RedisStoreError(
          'NOT_A_CLIENT',
          `${what}: this node-redis client runs in legacyMode (callbacks); pass its promise client, client.v4`,
        );
      }
      // A cluster sends it to the node of the first key, never a replica: every read must see the last write.
      return 'masters' in candidate
        ? (args, key) => (candidate as unknown as NodeRedisClusterLike).sendCommand(key, false, args)
        : (args) => (candidate as unknown as NodeRedisLike).sendCommand(args);
    }
  }
  throw new RedisStoreError('NOT_A_CLIENT', `${what}: redis is not a Redis client; ${ACCEPTED}`);
}

function keepAliveOnError(redis: unknown): void {
  const emitter = redis as { on?: unknown; listenerCount?: unknown };
  if (!isFunction(emitter.on) || !isFunction(emitter.listenerCount)) return;
  const count = (emitter.listenerCount as (event: string) => number).call(redis, 'error');
  if (count === 0)
    (emitter.on as (event: string, listener: () => void) => void).call(redis, 'error', () => {});
}

/**
 * After a failover, a connection left on the old primary answers writes `READONLY`: a standalone
 * ioredis client without `reconnectOnError` gets one (`2`: reconnect, resend); node-redis is
 * reconnected once per `READONLY`. A Cluster follows `MOVED` on its own.
 */
function reconnectOnReadonly(redis: unknown): (err: unknown) => never {
  const client = redis as {
    isCluster?: unknown;
    options?: { reconnectOnError?: unknown };
    masters?: unknown;
    disconnect?: () => Promise<void>;
    connect?: () => Promise<unknown>;
  };
  if (client.isCluster === false && client.options && !client.options.reconnectOnError)
    client.options.reconnectOnError = (err: Error) => (err.message.startsWith('READONLY') ? 2 : false);
  const nodeRedis = client.isCluster === undefined && !('masters' in client) && isFunction(client.connect);
  let reconnecting: Promise<void> | undefined;
  return (err) => {
    if (nodeRedis && !reconnecting && err instanceof Error && err.message.startsWith('READONLY')) {
      reconnecting = (async () => {
        await client.disconnect?.();
        await client.connect?.();
      })()
        .catch(() => undefined)
        .finally(() => {
          reconnecting = undefined;
        });
    }
    throw err;
  };
}

function warnIfEvicting(send: RedisCommand, what: string): void {
  send(['CONFIG', 'GET', 'maxmemory-policy']).then(
    (reply) => {
      const values = Array.isArray(reply) ? reply : Object.values((reply as Record<string, unknown>) ?? {});
      const policy = values.map(String).find((value) => value !== 'maxmemory-policy');
      if (policy !== undefined && /^(allkeys|volatile)-/.test(policy)) {
        warn(
          `${what}: Redis runs with maxmemory-policy ${policy}, which may evict the inbox's records: ` +
            'a handler would then run twice, and a stored delivery already answered 200 would be lost. ' +
            'Use maxmemory-policy noeviction for the Redis that holds them',
          'LOYALTY_REDIS_EVICTION',
        );
      }
    },
    // Managed Redis often refuses CONFIG: nothing is known, nothing is said.
    () => undefined,
  );
}

/** EVAL (Redis caches the script by its text); every key it touches is in `keys`, in one hash slot. */
export const evalScript = (
  command: RedisCommand,
  script: string,
  keys: readonly string[],
  args: readonly (string | number)[],
) => command(['EVAL', script, String(keys.length), ...keys, ...args.map(String)], keys[0]);
