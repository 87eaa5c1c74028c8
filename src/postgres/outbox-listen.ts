import { backoffDelay } from '../internal/backoff.js';
import { backgroundTimeout } from '../internal/timers.js';
import { hasMethod, isPgPool, type SqlRunner } from './database.js';
import { PostgresStoreError } from './errors.js';
import type { OutboxSql } from './outbox-sql.js';

/** An idle mark outlives a killed process by at most this long; a live idle store renews it. */
const IDLE_TTL_MS = 10 * 60_000;
const IDLE_REFRESH_MS = IDLE_TTL_MS / 2;

/** A `pg.Client`'s `notification` event. */
type PgNotification = { channel: string; payload?: string };

/**
 * What `postgresStore(db, { listen })` accepts: a dedicated, connected `pg.Client` (not a pool's
 * client: it keeps its session to stay listening), or a postgres.js `sql` (its `sql.listen`
 * opens and keeps its own connection). Structural: no driver is imported.
 */
export type PostgresListenClient =
  | {
      query(text: string): Promise<unknown>;
      on(event: 'notification', listener: (message: PgNotification) => void): unknown;
      removeListener(event: 'notification', listener: (message: PgNotification) => void): unknown;
    }
  | {
      listen(
        channel: string,
        onNotify: (payload: string) => void,
      ): PromiseLike<{ unlisten(): PromiseLike<unknown> }>;
    };

/** @throws {PostgresStoreError} `INVALID_OPTIONS` for a pool or anything that cannot listen */
export function checkListenClient(listen: unknown): PostgresListenClient | undefined {
  if (listen === undefined) return undefined;
  const pgClient = hasMethod(listen, 'query') && hasMethod(listen, 'on');
  if (isPgPool(listen) || (!pgClient && !hasMethod(listen, 'listen'))) {
    throw new PostgresStoreError(
      'INVALID_OPTIONS',
      'postgresStore: listen must be a dedicated, connected pg.Client (new pg.Client(...), not a pool or ' +
        "a pool's client) or a postgres.js sql; it stays connected to receive wake-ups",
    );
  }
  return listen as PostgresListenClient;
}

/** A `pg.Client` as the listener uses it (connected by the user, or made again by the store). */
interface PgListenClient {
  query(text: string): Promise<unknown>;
  on(event: string, listener: (...args: never[]) => void): unknown;
  removeListener(event: string, listener: (...args: never[]) => void): unknown;
  connect?(): Promise<unknown>;
  end?(): Promise<unknown>;
  connectionParameters?: unknown;
}

/** The waits between attempts to listen again after the listen client's connection ended. */
const RELISTEN = { baseDelayMs: 250, maxDelayMs: 30_000 };

/**
 * Calls `wake` at each notification on `channel`; resolves, once listening, with what stops (the
 * user's client stays open). A `pg.Client` cannot reconnect: when it ends, the store opens one of
 * the same class and parameters, with backoff, and wakes once listening again (notifications lost).
 */
export async function listenOn(
  client: PostgresListenClient,
  channel: string,
  wake: (payload?: string) => void,
): Promise<() => Promise<void>> {
  if ('listen' in client) {
    // postgres.js listens on a connection of its own and listens again after a reconnect.
    const { unlisten } = await client.listen(channel, (payload) => wake(payload));
    return async () => {
      await unlisten();
    };
  }
  const onNotification = (message: PgNotification) => {
    if (message.channel === channel) wake(message.payload);
  };
  let current = client as PgListenClient;
  let stopped = false;
  let failures = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const attach = (target: PgListenClient) => {
    target.on('notification', onNotification);
    target.on('error', lost);
    target.on('end', lost);
  };
  const detach = (target: PgListenClient) => {
    target.removeListener('notification', onNotification);
    target.removeListener('end', lost);
    // Kept: a dead client may still emit `error` later, and one without a listener is fatal.
  };
  function lost(): void {
    if (stopped || timer !== undefined) return;
    detach(current);
    schedule();
  }
  function schedule(): void {
    failures += 1;
    timer = backgroundTimeout(relisten, backoffDelay(failures, RELISTEN) + RELISTEN.baseDelayMs);
  }
  async function relisten(): Promise<void> {
    timer = undefined;
    if (stopped) return;
    const Client = current.constructor as (new (config: unknown) => PgListenClient) | undefined;
    if (typeof Client !== 'function' || typeof current.connect !== 'function') return;
    const next = new Client(current.connectionParameters);
    next.on('error', () => undefined);
    try {
      await next.connect!();
      await next.query(`LISTEN "${channel}"`);
    } catch {
      await next.end?.().catch(() => undefined);
      if (!stopped) schedule();
      return;
    }
    if (stopped) {
      await next.end?.().catch(() => undefined);
      return;
    }
    current = next;
    failures = 0;
    attach(next);
    wake();
  }

  attach(current);
  await current.query(`LISTEN "${channel}"`);
  return async () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    detach(current);
    if (current === client) {
      await current.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    } else {
      // A client the store made is the store's to close.
      await current.end?.().catch(() => undefined);
    }
  };
}

/**
 * This store's row in `outbox_idle_listeners` (enqueues notify while there is one): present while
 * it listens and its last claim found nothing; written when that changes, never per claim.
 */
export function idleMarks(database: SqlRunner, sql: OutboxSql, owner: string) {
  let listening = false;
  let idleSince: number | undefined;
  // One after the other: on a pool, close()'s DELETE could overtake an INSERT still on its way.
  let last: Promise<unknown> = Promise.resolve();
  const write = (text: string, params: readonly unknown[]): Promise<unknown> => {
    const done = last.then(() => database.query(text, params));
    last = done.catch(() => undefined);
    return done;
  };
  return {
    /** Records the claim's outcome (`busy`: it found work, or claims are held); true when just marked idle. */
    async afterClaim(busy: boolean): Promise<boolean> {
      if (!listening) return false;
      if (busy) {
        if (idleSince !== undefined) {
          // A failure must not lose the claimed rows: tried again at the next fruitful claim.
          try {
            await write(sql.markBusy, [owner]);
            idleSince = undefined;
          } catch {}
        }
        return false;
      }
      const now = Date.now();
      if (idleSince !== undefined && now - idleSince < IDLE_REFRESH_MS) return false;
      const first = idleSince === undefined;
      idleSince = now;
      await write(sql.markIdle, [owner, IDLE_TTL_MS]);
      return first;
    },
    async listening(on: boolean): Promise<void> {
      listening = on;
      if (on || idleSince === undefined) return;
      idleSince = undefined;
      await write(sql.markBusy, [owner]).catch(() => undefined);
    },
  };
}

/** How long a store waits for its own test notification before it says `listen` does not work. */
export const LISTEN_CHECK_MS = 5_000;

/**
 * Checks that a notification sent through `db` reaches the listen connection (behind a transaction
 * pooler `LISTEN` is silently forgotten). `sent` resolves once committed; `result` is true (heard),
 * false (not within {@link LISTEN_CHECK_MS}) or undefined (not sent, or cancelled).
 */
export function checkListening(send: (payload: string) => Promise<unknown>, payload: string) {
  let settled = false;
  let settle!: (value: boolean | undefined) => void;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const result = new Promise<boolean | undefined>((resolve) => {
    settle = (value) => {
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
  });
  const sent = send(payload).then(
    () => {
      if (!settled) timer = backgroundTimeout(() => settle(false), LISTEN_CHECK_MS);
    },
    () => settle(undefined),
  );
  return {
    heard: (arrived: string | undefined) => {
      if (arrived === payload) settle(true);
    },
    sent,
    result,
    cancel: () => settle(undefined),
  };
}
