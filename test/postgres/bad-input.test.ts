import {
  migrate,
  PostgresStoreError,
  postgresInbox,
  postgresRuleStore,
  postgresStore,
} from 'loyalty-partner-sdk/postgres';
import type { InboxStore, ReceiverFailure } from 'loyalty-partner-sdk/webhooks';
import { createReceiver } from 'loyalty-partner-sdk/webhooks';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/real-servers.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';
import { outboundEvent, SECRET, signedDelivery } from '../webhooks/support/deliveries.js';
import { serveOverHttp } from '../webhooks/support/over-http.js';

/** A receiver over real HTTP with `inbox`; `failures` collects what onError was told. */
async function receiverWith(inbox: InboxStore<unknown>) {
  const failures: ReceiverFailure[] = [];
  const receiver = createReceiver({
    secrets: SECRET,
    inbox,
    handlers: { async LoyaltyRuleChanged() {} },
    onError: (failure) => {
      failures.push(failure);
    },
  });
  return { http: await serveOverHttp(receiver), failures };
}

const storeError = (failure: ReceiverFailure | undefined) =>
  (failure as { cause?: unknown } | undefined)?.cause;

describe('Postgres stores refuse bad input with a typed error that says what to fix', () => {
  const notClients: Array<[string, unknown]> = [
    ['a connection string', 'postgres://localhost/db'],
    ['an empty object', {}],
    ['null', null],
    ['a Drizzle-like wrapper without query()', { select() {} }],
  ];
  for (const [name, db] of notClients) {
    it(`db that is ${name}`, async () => {
      for (const build of [() => postgresInbox(db as never), () => postgresRuleStore(db as never)]) {
        expect(build).toThrow(PostgresStoreError);
        expect(build).toThrow(
          /db must be a pg Pool, Client or PoolClient, or a postgres.js sql.*Pass your own client/,
        );
      }
      await expect(migrate(db as never)).rejects.toMatchObject({
        name: 'PostgresStoreError',
        code: 'NOT_A_CLIENT',
      });
    });
  }

  const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/postgres' });
  afterAll(() => pool.end());
  for (const schema of ['loyalty; DROP TABLE users', 'Loyalty"', '1abc', '', 'a'.repeat(64)]) {
    it(`schema ${JSON.stringify(schema.slice(0, 30))}`, async () => {
      expect(() => postgresInbox(pool, { schema })).toThrow(
        expect.objectContaining({ name: 'PostgresStoreError', code: 'INVALID_SCHEMA' }),
      );
      expect(() => postgresRuleStore(pool, { schema })).toThrow(/schema must be a plain identifier/);
      await expect(migrate(pool, { schema })).rejects.toMatchObject({ code: 'INVALID_SCHEMA' });
    });
  }

  it('options out of range', () => {
    expect(() => postgresInbox(pool, { leaseMs: -1, lockTimeoutMs: 1.5 })).toThrow(
      /postgresInbox: leaseMs must be a whole number of milliseconds > 0; lockTimeoutMs must be/,
    );
  });
});

describe('an unreachable Postgres server: typed error naming the fix, and the delivery answered 503', () => {
  let url: string;
  beforeAll(async () => {
    url = `postgres://postgres@127.0.0.1:${await freePort()}/postgres`;
  });
  const cases = {
    'pg, claims as rows': () => postgresInbox(new pg.Pool({ connectionString: url })),
    'pg, transactional': () => postgresInbox(new pg.Pool({ connectionString: url }), { transactional: true }),
    'postgres.js, transactional': () =>
      postgresInbox(postgres(url, { max: 1, connect_timeout: 5 }), { transactional: true }),
  };
  for (const [name, inbox] of Object.entries(cases)) {
    it(name, async () => {
      const { http, failures } = await receiverWith(inbox());
      try {
        const answer = await http.post(signedDelivery(outboundEvent('LoyaltyRuleChanged')));
        expect(answer).toMatchObject({ status: 503, body: { code: 'INBOX_UNAVAILABLE' } });
        expect(failures.map((failure) => failure.code)).toEqual(['INBOX_UNAVAILABLE']);
        expect(storeError(failures[0])).toMatchObject({
          name: 'PostgresStoreError',
          code: 'UNREACHABLE',
          message: expect.stringContaining('check the host, port and that the server runs'),
        });
      } finally {
        await http.close();
      }
    });
  }

  it('migrate says so too', async () => {
    const unreachable = new pg.Pool({ connectionString: url });
    await expect(migrate(unreachable)).rejects.toMatchObject({ code: 'UNREACHABLE' });
    await unreachable.end();
  });
});

describeWithPostgres('a Postgres connection dropped mid-claim', (url) => {
  const schema = uniqueName('dropped');
  const admin = new pg.Pool({ connectionString: url, max: 3 });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  beforeAll(() => migrate(admin, { schema }));
  afterAll(async () => {
    await Promise.all([admin.end(), pool.end(), sql.end({ timeout: 1 })]);
  });

  const cases = {
    'pg, claims as rows': () => postgresInbox(pool, { schema }),
    'pg, transactional': () => postgresInbox(pool, { schema, transactional: true, lockTimeoutMs: 60_000 }),
    'postgres.js, claims as rows': () => postgresInbox(sql, { schema }),
    // Not postgres.js inside sql.begin: when the backend of a transaction is terminated,
    // postgres.js 3.4.9 throws an uncaught TypeError (socket.write on null) from its own
    // connection code, which no caller can catch (porsager/postgres#1208, fix in #1155).
  };
  for (const [name, inbox] of Object.entries(cases)) {
    it(`${name}: CONNECTION_LOST, 503, and the redelivery is handled on a fresh connection`, async () => {
      const { http, failures } = await receiverWith(inbox());
      const delivery = signedDelivery(outboundEvent('LoyaltyRuleChanged'));
      const { eventId } = JSON.parse(delivery.rawBody);
      // Another transaction holds the event's row, so the claim waits on it; then the claiming
      // backend is terminated from a third connection, as a failover or an admin would.
      const blocker = await admin.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query(
          `INSERT INTO ${schema}.inbox_events (event_id, event_type, state) VALUES ($1, 'X', 'pending')`,
          [eventId],
        );
        const answered = http.post(delivery);
        let waiting: number | undefined;
        while (waiting === undefined) {
          const { rows } = await admin.query(
            `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> $2`,
            [`%${schema}%inbox%`, (blocker as unknown as { processID: number }).processID],
          );
          waiting = rows[0]?.pid;
        }
        await admin.query('SELECT pg_terminate_backend($1)', [waiting]);
        const answer = await answered;
        expect(answer).toMatchObject({ status: 503, body: { code: 'INBOX_UNAVAILABLE' } });
        expect(storeError(failures[0])).toMatchObject({
          name: 'PostgresStoreError',
          code: 'CONNECTION_LOST',
          message: expect.stringContaining('the PostgreSQL connection was lost'),
        });
        await blocker.query('ROLLBACK');
        expect(await http.post(delivery)).toMatchObject({ status: 200, body: { outcome: 'handled' } });
      } finally {
        blocker.release();
        await http.close();
      }
    });
  }
});

describeWithPostgres('a store given a postgres.js transaction sql', (url) => {
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  afterAll(() => sql.end({ timeout: 1 }));

  it('is refused with NOT_A_CLIENT: the store would outlive the transaction; migrate takes it', async () => {
    const schema = uniqueName('tx_sql');
    const refused: unknown[] = [];
    await sql.begin(async (tx) => {
      for (const build of [
        () => postgresInbox(tx as never, { schema }),
        () => postgresRuleStore(tx as never, { schema }),
        () => postgresStore(tx as never, { schema }),
      ]) {
        try {
          build();
        } catch (err) {
          refused.push(err);
        }
      }
      // A migration run inside your own transaction commits or rolls back with it.
      await migrate(tx as never, { schema });
    });
    expect(refused).toHaveLength(3);
    for (const err of refused) {
      expect(err).toMatchObject({ name: 'PostgresStoreError', code: 'NOT_A_CLIENT' });
      expect((err as Error).message).toMatch(
        /transaction sql \(from sql\.begin\).*Give it the sql that postgres\(url\) returns/,
      );
    }
    const tables = await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = ${schema}`;
    expect(tables.length).toBeGreaterThan(0);
  });
});
