import { warn } from '../internal/warn.js';
import { crc32 } from '../outbox/crc32.js';
import { outsideTransaction } from './client-turn.js';
import {
  knownDirect,
  learnPgConnection,
  POSTGRES_JS_PREPARE_WARNING,
  postgresJsPooled,
} from './connection-kind.js';
import { isConflict, isConnectionError, PostgresStoreError } from './errors.js';

/** `pg`'s `query`, by text or as a named statement. */
type PgQuery = (
  query: string | { name: string; text: string; values: unknown[] },
  values?: unknown[],
) => Promise<{ rows: unknown[]; rowCount: number | null }>;

/** The part of a `pg` Client or PoolClient the stores use; structural, so no `pg` is needed. */
export interface PgClientLike {
  query: PgQuery;
  /** Present on a PoolClient: gives the connection back (`release(err)` destroys it). */
  release?: (err?: Error | boolean) => void;
  /** pg's EventEmitter methods, for the `error` a checked-out connection emits when it breaks. */
  on?: (event: 'error', listener: (err: Error) => void) => unknown;
  removeListener?: (event: 'error', listener: (err: Error) => void) => unknown;
}

/** The part of a `pg` Pool the stores use. */
export interface PgPoolLike {
  query: PgQuery;
  connect(): Promise<PgClientLike & { release(err?: Error | boolean): void }>;
  readonly totalCount: number;
}

/** The part of a postgres.js `sql` (or of the `sql` inside `sql.begin`) the stores use. */
export interface PostgresJsLike {
  unsafe(
    text: string,
    values?: unknown[],
    options?: { prepare?: boolean },
  ): PromiseLike<unknown[] & { count?: number | null }>;
  /** On the top-level `sql`. */
  begin?: {
    (work: (sql: PostgresJsLike) => Promise<unknown>): PromiseLike<unknown>;
    (options: string, work: (sql: PostgresJsLike) => Promise<unknown>): PromiseLike<unknown>;
  };
  /** On a transaction `sql`. */
  savepoint?: (work: (sql: PostgresJsLike) => Promise<unknown>) => PromiseLike<unknown>;
}

/**
 * What the Postgres stores and `migrate` accept as `db`: a `pg` Pool, Client or PoolClient, or a
 * postgres.js `sql` or transaction `sql`. The stores never open connections of their own.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import type { PostgresDb } from 'loyalty-partner-sdk/postgres';
 * const db: PostgresDb = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * ```
 */
export type PostgresDb = PgPoolLike | PgClientLike | PostgresJsLike;

/** Runs statements on one connection or pool; the result is the same for both drivers. */
export interface SqlRunner {
  query<Row = Record<string, unknown>>(
    text: string,
    params?: readonly unknown[],
  ): Promise<{ rows: Row[]; rowCount: number }>;
}

/**
 * The one internal interface over both drivers. `transaction` also hands `work` the driver's own
 * transaction object (`raw`: the PoolClient or transaction `sql`), the handler's `ctx.tx`.
 */
export interface Database extends SqlRunner {
  readonly driver: 'pg' | 'postgres.js';
  /**
   * READ COMMITTED whatever the database's default (the stores are written for it), rolled back
   * when `work` throws; in a postgres.js transaction `sql`, a savepoint of it instead.
   */
  transaction<T>(work: (tx: SqlRunner, raw: unknown) => Promise<T>): Promise<T>;
  /** Whether the connections go through a pooler; undefined when it cannot be told. */
  pooled(): Promise<boolean | undefined>;
  /** postgres.js only: true when the user's `sql` prepares statements (no `prepare: false`). */
  readonly prepares?: boolean;
}

const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/** Whether `value[key]` is a method (a postgres.js `sql` is a function with properties). */
export const hasMethod = (value: unknown, key: string): boolean =>
  (typeof value === 'object' || typeof value === 'function') &&
  value !== null &&
  typeof (value as Record<string, unknown>)[key] === 'function';

export const isPgPool = (value: unknown): value is PgPoolLike =>
  hasMethod(value, 'connect') && typeof (value as { totalCount?: unknown }).totalCount === 'number';

/**
 * The client of a store, which outlives any transaction: a postgres.js transaction `sql` is
 * refused, since after its transaction it runs statements on a connection given to others.
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT`
 */
export function toStoreDatabase(db: unknown, what: string): Database {
  const database = toDatabase(db, what);
  if (database.driver === 'postgres.js' && !hasMethod(db, 'begin')) {
    throw new PostgresStoreError(
      'NOT_A_CLIENT',
      `${what}: db is a postgres.js transaction sql (from sql.begin); the store outlives that transaction. ` +
        'Give it the sql that postgres(url) returns',
    );
  }
  return retryingConflicts(database);
}

const CONFLICT_ATTEMPTS = 8;

/**
 * Every store statement is one implicit transaction, safe to run again: under REPEATABLE READ or
 * SERIALIZABLE a serialization failure runs it again at once (jittered, doubling), not at the next
 * poll. `transaction` never runs again: it holds the caller's work.
 */
function retryingConflicts(database: Database): Database {
  return {
    ...database,
    async query<Row>(text: string, params?: readonly unknown[]) {
      for (let attempt = 1; ; attempt++) {
        try {
          return await database.query<Row>(text, params);
        } catch (err) {
          if (attempt >= CONFLICT_ATTEMPTS || !isConflict(err)) throw err;
          await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt));
        }
      }
    },
  };
}

/**
 * Recognises the user's client by its shape (no driver is imported).
 *
 * @throws {PostgresStoreError} `NOT_A_CLIENT` for anything else
 */
export function toDatabase(db: unknown, what: string): Database {
  if (hasMethod(db, 'unsafe') && (hasMethod(db, 'begin') || hasMethod(db, 'savepoint'))) {
    return postgresJsDatabase(db as PostgresJsLike);
  }
  if (typeof db === 'object' && hasMethod(db, 'query')) {
    if (isPgPool(db)) return pgPoolDatabase(db);
    if (!hasMethod(db, 'then')) return pgClientDatabase(db as PgClientLike);
  }
  throw new PostgresStoreError(
    'NOT_A_CLIENT',
    `${what}: db must be a pg Pool, Client or PoolClient, or a postgres.js sql; got ${describe(db)}. ` +
      'Pass your own client, e.g. new pg.Pool({ connectionString }) or postgres(url)',
  );
}

const describe = (value: unknown): string => {
  if (value === null) return 'null';
  if (typeof value !== 'object' && typeof value !== 'function') return typeof value;
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== 'Object' ? `a ${name}` : `an object without query()`;
};

/**
 * The name each store statement is prepared under on a `pg` connection known direct (pg re-plans an
 * unnamed statement at every call); elsewhere unnamed (`connection-kind.ts`). A user's `ctx.tx.query`
 * texts are never named: they would stay prepared.
 */
const statementNames = new Map<string, string>();

export function prepareStatements(texts: Iterable<string>): void {
  for (const text of texts) {
    const hash = crc32(text).toString(16);
    statementNames.set(text, `loyalty_${hash}_${text.length}`);
  }
}

/** The name `text` is prepared under, where `named` (the connection is known direct). */
export const statementName = (text: string, named: boolean): string | undefined =>
  named ? statementNames.get(text) : undefined;

const pgRunner = (client: PgClientLike, named: () => boolean): SqlRunner => ({
  async query<Row>(text: string, params: readonly unknown[] = []) {
    const name = statementName(text, named());
    const result = await (name === undefined
      ? client.query(text, params as unknown[])
      : client.query({ name, text, values: params as unknown[] }));
    return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
  },
});

/** BEGIN/COMMIT on one pg connection, ROLLBACK when work throws; `broken` hears of a dead connection. */
async function inPgTransaction<T>(
  client: PgClientLike,
  work: (tx: SqlRunner, raw: unknown) => Promise<T>,
  named: () => boolean,
  broken: (error: unknown) => void = ignore,
): Promise<T> {
  await client.query(BEGIN).catch((error: unknown) => {
    broken(error);
    throw error;
  });
  try {
    const value = await work(pgRunner(client, named), client);
    await client.query('COMMIT');
    return value;
  } catch (error) {
    if (isConnectionError(error)) broken(error);
    else await client.query('ROLLBACK').catch(() => broken(error));
    throw error;
  }
}

/** Is the `pg` connection still on the backend it started with (no pooler between)? */
async function probePgConnection(client: PgClientLike): Promise<boolean | undefined> {
  const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
  return learnPgConnection(client, (rows[0] as { pid?: unknown } | undefined)?.pid);
}

/**
 * Whether statements may be named (known direct; asking starts the probe) and whether connections
 * are pooled. `find` runs once for every caller; a failed attempt resolves undefined, retried later.
 */
function connectionKind(known: () => boolean | undefined, find: () => Promise<boolean | undefined>) {
  let finding: Promise<boolean | undefined> | undefined;
  const probe = () => {
    finding ??= find().catch(() => {
      finding = undefined;
      return undefined;
    });
    return finding;
  };
  return {
    named(): boolean {
      const direct = known();
      if (direct === undefined) void probe();
      return direct === true;
    },
    async pooled(): Promise<boolean | undefined> {
      const direct = known() ?? (await probe());
      return direct === undefined ? undefined : !direct;
    },
  };
}

const ignore = () => undefined;

function pgPoolDatabase(pool: PgPoolLike): Database {
  // A pool has one address, so one of its connections tells for all.
  let found: boolean | undefined;
  const kind = connectionKind(
    () => found,
    async () => {
      const client = await pool.connect();
      client.on?.('error', ignore);
      try {
        found = await probePgConnection(client);
        client.release();
      } catch (err) {
        client.release(asError(err));
        throw err;
      } finally {
        client.removeListener?.('error', ignore);
      }
      return found;
    },
  );
  return {
    driver: 'pg',
    ...pgRunner(pool, kind.named),
    pooled: kind.pooled,
    async transaction<T>(work: (tx: SqlRunner, raw: unknown) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      // A checked-out client has no listener of the pool's: its `error` (the server ended the
      // connection) would be uncaught and end the process. The statement under way fails too.
      let broke: Error | undefined;
      const onError = (err: unknown) => {
        broke ??= asError(err);
      };
      client.on?.('error', onError);
      try {
        return await inPgTransaction(client, work, kind.named, onError);
      } finally {
        client.removeListener?.('error', onError);
        // A connection that broke is destroyed, not given back to the pool for the next caller.
        client.release(broke);
      }
    },
  };
}

function pgClientDatabase(client: PgClientLike): Database {
  // One connection runs one transaction at a time: later ones wait their turn. Outside them,
  // a statement of the store never joins a transaction open on the client (`client-turn.ts`).
  let queue: Promise<unknown> = Promise.resolve();
  const { named, pooled } = connectionKind(
    () => knownDirect(client),
    () => outsideTransaction(client, () => probePgConnection(client)),
  );
  const runner = pgRunner(client, named);
  return {
    driver: 'pg',
    query: (text, params) => outsideTransaction(client, () => runner.query(text, params)),
    pooled,
    transaction(work) {
      const run = queue.then(() => outsideTransaction(client, () => inPgTransaction(client, work, named)));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

function postgresJsDatabase(sql: PostgresJsLike): Database {
  const runner = (target: PostgresJsLike): SqlRunner => ({
    async query<Row>(text: string, params: readonly unknown[] = []) {
      // Prepared: `unsafe` otherwise describes each statement with parameters first, a round trip
      // more. A `prepare: false` given to postgres() (pgbouncer in transaction mode) still wins.
      const result = await target.unsafe(text, params as unknown[], { prepare: true });
      return { rows: [...result] as Row[], rowCount: result.count ?? result.length };
    },
  });
  const options = (sql as { options?: { host?: unknown; port?: unknown; prepare?: unknown } }).options;
  const { pooled } = connectionKind(
    () => undefined,
    async () => {
      if (!options) return undefined;
      const rows = await sql.unsafe("SELECT current_setting('port') AS port");
      return !postgresJsPooled(options, (rows[0] as { port?: unknown } | undefined)?.port);
    },
  );
  return {
    driver: 'postgres.js',
    ...runner(sql),
    prepares: options !== undefined && options.prepare !== false,
    pooled,
    async transaction<T>(work: (tx: SqlRunner, raw: unknown) => Promise<T>): Promise<T> {
      // Inside a transaction `sql`, a savepoint is the nested transaction (its `begin`, if any,
      // would open a second connection outside the user's transaction).
      if (sql.savepoint) return (await sql.savepoint.call(sql, (tx) => work(runner(tx), tx))) as T;
      if (!sql.begin)
        throw new PostgresStoreError('NOT_A_CLIENT', 'db: this postgres.js sql cannot open a transaction');
      return (await sql.begin.call(sql, 'isolation level read committed', (tx) => work(runner(tx), tx))) as T;
    },
  };
}

/**
 * Says once per process, as a Node warning, that a postgres.js `sql` prepares statements behind
 * a pooler ({@link POSTGRES_JS_PREPARE_WARNING}); returns the text, or undefined when all is well.
 */
export async function checkPreparesBehindPooler(database: Database): Promise<string | undefined> {
  if (database.driver !== 'postgres.js' || !database.prepares || !(await database.pooled())) return undefined;
  warn(POSTGRES_JS_PREPARE_WARNING, 'LOYALTY_POSTGRES_PREPARE', true);
  return POSTGRES_JS_PREPARE_WARNING;
}

const asError = (value: unknown): Error => (value instanceof Error ? value : new Error(String(value)));
