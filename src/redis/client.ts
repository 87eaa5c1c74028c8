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
 * Recognises the client by its shape (no driver is imported).
 *
 * @throws {RedisStoreError} `NOT_A_CLIENT`
 */
export function toRedisCommand(redis: unknown, what: string): RedisCommand {
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

/** Runs a Lua script with one key (EVAL; Redis caches the compiled script by its text). */
export const evalScript = (command: RedisCommand, script: string, key: string, args: (string | number)[]) =>
  command(['EVAL', script, '1', key, ...args.map(String)]);
