import type { SqlRunner } from './database.js';
import { PostgresStoreError } from './errors.js';
import type { OutboxSql } from './outbox-sql.js';

/** An idle mark outlives a killed process by at most this long; a live idle store renews it. */
const IDLE_TTL_MS = 10 * 60_000;
const IDLE_REFRESH_MS = IDLE_TTL_MS / 2;

/**
 * What `postgresStore(db, { listen })` accepts: a dedicated, connected `pg.Client` (not a pool's
 * client: it keeps its session to stay listening), or a postgres.js `sql` (its `sql.listen`
 * opens and keeps its own connection). Structural: no driver is imported.
 */
export type PostgresListenClient =
  | {
      query(text: string): Promise<unknown>;
      on(event: 'notification', listener: (message: { channel: string }) => void): unknown;
      removeListener(event: 'notification', listener: (message: { channel: string }) => void): unknown;
    }
  | {
      listen(
        channel: string,
        onNotify: (payload: string) => void,
      ): PromiseLike<{ unlisten(): PromiseLike<unknown> }>;
    };

const isFunction = (value: unknown): boolean => typeof value === 'function';

/** @throws {PostgresStoreError} `INVALID_OPTIONS` for a pool or anything that cannot listen */
export function checkListenClient(listen: unknown): PostgresListenClient | undefined {
  if (listen === undefined) return undefined;
  const candidate = listen as Record<string, unknown> | null;
  const isPool =
    candidate !== null && isFunction(candidate.connect) && typeof candidate.totalCount === 'number';
  const pgClient = candidate !== null && isFunction(candidate.query) && isFunction(candidate.on);
  const postgresJs = candidate !== null && isFunction(candidate.listen);
  if (isPool || (!pgClient && !postgresJs)) {
    throw new PostgresStoreError(
      'INVALID_OPTIONS',
      'postgresStore: listen must be a dedicated, connected pg.Client (new pg.Client(...), not a pool or ' +
        "a pool's client) or a postgres.js sql; it stays connected to receive wake-ups",
    );
  }
  return listen as PostgresListenClient;
}

/**
 * Listens on `channel` and calls `wake` at each notification; resolves once the `LISTEN` is in
 * place, with what stops listening (the user's client stays open).
 */
export async function listenOn(
  client: PostgresListenClient,
  channel: string,
  wake: () => void,
): Promise<() => Promise<void>> {
  if ('listen' in client) {
    // postgres.js listens on a connection of its own and listens again after a reconnect.
    const { unlisten } = await client.listen(channel, () => wake());
    return async () => {
      await unlisten();
    };
  }
  const onNotification = (message: { channel: string }) => {
    if (message.channel === channel) wake();
  };
  client.on('notification', onNotification);
  await client.query(`LISTEN "${channel}"`);
  return async () => {
    client.removeListener('notification', onNotification);
    await client.query(`UNLISTEN "${channel}"`).catch(() => undefined);
  };
}

/**
 * This store's row in `outbox_idle_listeners`, which makes enqueues notify: present while the
 * store listens and its last claim (open to every tenant) found nothing, absent once one finds
 * work. Written only when that changes (and renewed while idle), never per claim under load.
 */
export function idleMarks(database: SqlRunner, sql: OutboxSql, owner: string) {
  let listening = false;
  let idleSince: number | undefined;
  // The marks are written one after the other: on a pool each may go out on another connection,
  // and the DELETE of `close()` overtaking an INSERT still on its way left the closed store
  // marked idle, making every sale notify until the mark expired.
  let last: Promise<unknown> = Promise.resolve();
  const write = (text: string, params: readonly unknown[]): Promise<unknown> => {
    const done = last.then(() => database.query(text, params));
    last = done.catch(() => undefined);
    return done;
  };
  return {
    /**
     * Records the claim's outcome; true when this store has just been marked idle. `busy`: the
     * claim found work, or the store still holds claims (it claims again as their answers
     * arrive), so it is not idle.
     */
    async afterClaim(busy: boolean): Promise<boolean> {
      if (!listening) return false;
      if (busy) {
        if (idleSince !== undefined) {
          // The rows are claimed: a failure here must not lose them (the mark is tried again at
          // the next fruitful claim; meanwhile enqueues notify for nothing, no more).
          await write(sql.markBusy, [owner]).then(
            () => {
              idleSince = undefined;
            },
            () => undefined,
          );
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
