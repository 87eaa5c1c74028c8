import { postgresInbox } from '../../postgres/inbox.js';
import { postgresStore } from '../../postgres/outbox-store.js';
import { quoteSchema } from '../../postgres/schema/identifier.js';
import { redisInbox } from '../../redis/inbox.js';
import type { DeferredInboxStore } from '../../webhooks/inbox.js';
import { type ParsedCommandArgs, valueFlags } from '../args.js';
import { UsageError } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { type AuditTrail, postgresAudit, redisAudit } from './audit.js';
import { openFileOutbox } from './file-outbox.js';
import { type OpsOutboxStore, StoreUnavailable } from './ops-stores.js';
import type { PgPool } from './outbox-sql-actions.js';
import { redactIn, redactUrl } from './redact.js';

/** The flags that name a database or a Redis, and where the SDK's data is in it. */
export const STORE_FLAGS = valueFlags('postgres', 'schema', 'redis', 'prefix');

/** A file outbox's directory (`fileStore`, opened while no process holds it) and its `--key-file`. */
export const FILE_FLAGS = valueFlags('file', 'key-file');

export type ConnectionFlags = Partial<ParsedCommandArgs<typeof STORE_FLAGS & typeof FILE_FLAGS>['values']>;

/** The stores an operator command works on, each with its own audit trail. */
export interface OpsBackends {
  /** Where it is connected, passwords redacted: printed in headings and errors. */
  readonly label: string;
  readonly outbox?: {
    readonly store: OpsOutboxStore;
    readonly audit: AuditTrail;
    /** A Postgres outbox: its actions run as SQL, each with its audit row in one transaction. */
    readonly sql?: { readonly pool: PgPool; readonly quotedSchema: string };
  };
  readonly inbox?: { readonly store: DeferredInboxStore<unknown>; readonly audit: AuditTrail };
  close(): Promise<void>;
}

type Wanted = { outbox: boolean; inbox: boolean; command: string };

/** Opens what the flags (or `DATABASE_URL`, `REDIS_URL`) name, loading the optional drivers. */
export async function openBackends(io: CliIo, flags: ConnectionFlags, wanted: Wanted): Promise<OpsBackends> {
  if (flags.file !== undefined) {
    if (flags.postgres !== undefined)
      throw new UsageError(`${wanted.command}: pass --file or --postgres, not both`);
    const opened = await openFileOutbox(flags.file, { keyFile: flags['key-file'] });
    return { label: flags.file, outbox: { store: opened.store, audit: opened.audit }, close: opened.close };
  }
  let postgresUrl = flags.postgres;
  let redisUrl = flags.redis;
  // No flag: DATABASE_URL, else (for an inbox alone) REDIS_URL.
  if (postgresUrl === undefined && redisUrl === undefined) {
    postgresUrl = io.env.DATABASE_URL || undefined;
    if (postgresUrl === undefined && !wanted.outbox) redisUrl = io.env.REDIS_URL || undefined;
  }
  if (wanted.outbox && !wanted.inbox && postgresUrl === undefined)
    throw new UsageError(`${wanted.command}: pass --postgres <url> or set DATABASE_URL`);
  if (postgresUrl === undefined && redisUrl === undefined)
    throw new UsageError(
      `${wanted.command}: pass --postgres <url> or --redis <url> (or set DATABASE_URL or REDIS_URL)`,
    );
  const closers: (() => Promise<unknown>)[] = [];
  const labels: string[] = [];
  let outbox: OpsBackends['outbox'];
  let inbox: OpsBackends['inbox'];
  if (postgresUrl !== undefined) {
    const schema = flags.schema ?? 'loyalty';
    const quoted = schemaFlag(schema);
    const pg = await loadDriver('pg', () => import('pg'));
    const pool = new (pg.default ?? pg).Pool({ connectionString: postgresUrl, max: 4 });
    // An idle connection that breaks must not end the process with an unhandled 'error'.
    pool.on('error', () => {});
    closers.push(() => pool.end());
    labels.push(`${redactUrl(postgresUrl)} (schema ${schema})`);
    const audit = postgresAudit(pool, quoted);
    if (wanted.outbox)
      outbox = {
        store: postgresStore(pool, { schema, cleanupEvery: 0 }),
        audit,
        sql: { pool, quotedSchema: quoted },
      };
    if (wanted.inbox && redisUrl === undefined) inbox = { store: postgresInbox(pool, { schema }), audit };
  }
  if (redisUrl !== undefined && wanted.inbox) {
    const prefix = flags.prefix ?? 'loyalty:';
    const redis = await connectRedis(redisUrl).catch(async (err: Error) => {
      await closeAll(closers);
      throw err instanceof UsageError
        ? err
        : new StoreUnavailable(`cannot reach Redis at ${redactUrl(redisUrl)}: ${err.message}`);
    });
    closers.push(async () => redis.disconnect());
    labels.push(`${redactUrl(redisUrl)} (prefix ${prefix})`);
    inbox = { store: redisInbox(redis, { prefix }), audit: redisAudit(redis, prefix) };
  }
  return {
    label: labels.join(', '),
    ...(outbox && { outbox }),
    ...(inbox && { inbox }),
    close: () => closeAll(closers),
  };
}

async function closeAll(closers: (() => Promise<unknown>)[]): Promise<void> {
  for (const close of closers.splice(0).reverse()) await close().catch(() => {});
}

/** Loads an optional peer dependency, or says which package `who` (a command) needs. */
export async function loadDriver<M>(name: string, load: () => Promise<M>, who = 'this command'): Promise<M> {
  try {
    return await load();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND')
      throw new UsageError(`${who} needs the ${name} package: npm install ${name}`);
    throw err;
  }
}

/** `--schema`, quoted for SQL, or a usage error saying what a schema name may hold. */
export function schemaFlag(schema: string): string {
  try {
    return quoteSchema(schema, '--schema');
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** An ioredis client that fails at once instead of retrying, so the command ends; passwords redacted. */
export async function connectRedis(url: string, who?: string) {
  const ioredis = await loadDriver('ioredis', () => import('ioredis'), who);
  const redis = new ioredis.Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  // An idle connection that breaks must not end the process with an unhandled 'error'.
  redis.on('error', () => {});
  try {
    await redis.connect();
  } catch (err) {
    throw new Error(redactIn((err as Error).message, url));
  }
  return redis;
}
