import { migrate, PostgresStoreError, postgresInbox, postgresStore } from 'loyalty-partner-sdk/postgres';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * A store given one pg client (a Client or a PoolClient) that the application also uses: the
 * store's own statements never run inside a transaction open on it, whoever opened it, and wait
 * for what is already on the client to be answered before they decide.
 */

describeWithPostgres('a store on a single pg client', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const schema = uniqueName('client_turn');
  let shared: pg.Client;
  const codeOf = (err: unknown) => (err instanceof PostgresStoreError ? err.code : err);

  beforeAll(async () => {
    await migrate(pool, { schema });
    shared = new pg.Client({ connectionString: url });
    await shared.connect();
  });
  afterAll(async () => {
    await shared.end().catch(() => undefined);
    await pool.end();
  });

  it('refuses a statement while a transaction is open on the client, even one whose BEGIN is still on its way', async () => {
    const store = postgresStore(shared, { schema });
    await shared.query('BEGIN');
    expect(codeOf(await store.get('evt-1').catch((err) => err))).toBe('CLIENT_IN_TRANSACTION');
    await shared.query('ROLLBACK');
    // BEGIN sent, not answered yet: the store waits for its answer, then refuses.
    const begun = shared.query('BEGIN');
    expect(codeOf(await store.get('evt-1').catch((err) => err))).toBe('CLIENT_IN_TRANSACTION');
    await begun;
    await shared.query('ROLLBACK');
    expect(await store.get('evt-1')).toBeUndefined();
  });

  it('runs behind a COMMIT still on its way, outside the transaction it ends', async () => {
    const store = postgresStore(shared, { schema });
    await shared.query('BEGIN');
    const committed = shared.query('COMMIT');
    expect(await store.get('evt-1')).toBeUndefined();
    await committed;
    expect(shared.getTransactionStatus()).toBe('I');
  });

  it('keeps its own transaction to itself: another statement on the client meanwhile is refused', async () => {
    const inbox = postgresInbox(shared, { schema, transactional: true });
    const store = postgresStore(shared, { schema });
    let during: unknown;
    await inbox.transaction(
      { tenantId: 't-1', eventId: 'evt-inbox-1', eventType: 'CouponUsed' },
      async () => {
        during = await store.get('evt-1').catch((err) => err);
      },
    );
    expect(codeOf(during)).toBe('CLIENT_IN_TRANSACTION');
    expect(await store.get('evt-1')).toBeUndefined();
  });

  it('lets many statements wait behind a query on one listener, and runs each of them', async () => {
    const store = postgresStore(shared, { schema });
    const drainListeners = shared.listenerCount('drain');
    const slow = shared.query('SELECT pg_sleep(0.05)');
    const waiting = Array.from({ length: 30 }, (_, i) => store.get(`evt-${i}`));
    // One shared wait, not one listener per statement (Node warns past ten).
    expect(shared.listenerCount('drain')).toBe(drainListeners + 1);
    await slow;
    expect(await Promise.all(waiting)).toEqual(Array.from({ length: 30 }, () => undefined));
    expect(shared.listenerCount('drain')).toBe(drainListeners);
  });

  it('fails at once, without waiting for ever, when the client ends with a statement still ahead', async () => {
    const ending = new pg.Client({ connectionString: url });
    await ending.connect();
    ending.on('error', () => undefined);
    const store = postgresStore(ending, { schema });
    const slow = ending.query('SELECT pg_sleep(0.2)').catch(() => undefined);
    const pending = store.get('evt-1').catch((err) => err);
    await ending.end();
    await slow;
    expect(await pending).toBeInstanceOf(PostgresStoreError);
  });

  it('fails at once when the server ended the client earlier, with a statement of its own still unanswered (a failover)', async () => {
    const killed = new pg.Client({ connectionString: url });
    await killed.connect();
    killed.on('error', () => undefined);
    const store = postgresStore(killed, { schema });
    const pid = (killed as unknown as { processID: number }).processID;
    const ended = new Promise((resolve) => killed.once('end', resolve));
    // The application's statement is under way when the server goes (pg_terminate_backend, as a
    // restart or a failover does): the client never answers it, nor emits anything again.
    const unanswered = killed.query('SELECT pg_sleep(30)').catch(() => undefined);
    while (
      (await pool.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = $2', [pid, 'active']))
        .rowCount === 0
    ) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await ended;
    await unanswered;
    // A drainer's next claim, and the next after it: each fails, none waits for ever.
    expect(codeOf(await store.get('evt-1').catch((err) => err))).toBe('CONNECTION_LOST');
    expect(codeOf(await store.counts().catch((err) => err))).toBe('CONNECTION_LOST');
  });
});
