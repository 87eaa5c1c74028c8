import { PostgresStoreError } from './errors.js';

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
