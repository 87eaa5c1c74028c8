import { LoyaltyClient, LoyaltyValidationError } from 'loyalty-partner-sdk';
import { createOutbox } from 'loyalty-partner-sdk/outbox';
import {
  migrate,
  OutboxTransactionError,
  type PostgresOutboxTx,
  PostgresStoreError,
  postgresStore,
} from 'loyalty-partner-sdk/postgres';
import { createEmulator, type Emulator, type MerchantCredentials } from 'loyalty-partner-sdk/testing';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sale } from '../support/outbox-fixtures.js';
import { describeWithPostgres, uniqueName } from '../support/servers.js';

/*
 * What the transactional outbox does with input it cannot use, through the public entry points:
 * a `tx` that is no transaction, a payload the contract refuses, connections that die under a
 * claim or under the caller's transaction. Each is a typed error, nothing is half-written, and
 * no event is lost or sent again under a new eventId.
 */

describeWithPostgres('enqueue({ tx }) with bad input', (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  const sql = postgres(url, { max: 2, onnotice: () => undefined });
  let emulator: Emulator;
  let merchant: MerchantCredentials;
  let client: LoyaltyClient;
  let baseUrl: string;
  let schema: string;
  const rows = async () => (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox`)).rows[0].n;

  beforeAll(async () => {
    emulator = createEmulator();
    ({ url: baseUrl } = await emulator.listen());
    merchant = emulator.createMerchant({ autoConfirmBranches: true });
    client = new LoyaltyClient({
      baseUrl,
      apiKey: merchant.apiKey,
      signingSecret: merchant.signingSecret,
      retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 20, budget: false },
    });
    await client.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
    for (const id of ['cust-1', 'cust-2', 'cust-3']) {
      await client.send('CustomerSynced', { externalCustomerId: id, phone: `+96650000000${id.at(-1)}` });
    }
    schema = uniqueName('outbox_bad');
    await migrate(pool, { schema });
  });
  afterAll(async () => {
    await client.close();
    await emulator.close();
    await sql.end();
    await pool.end();
  });

  const outboxOn = (db: pg.Pool | postgres.Sql) =>
    createOutbox({
      client,
      store: postgresStore(db, { schema }),
      defaultTenantId: merchant.tenantId,
      pollIntervalMs: 20,
      retryDelayMs: 10,
      maxRetryDelayMs: 40,
    });

  it('refuses a tx that is no open transaction with OutboxTransactionError, writing nothing', async () => {
    const outbox = outboxOn(pool);
    await outbox.start();
    const codeOf = async (tx: PostgresOutboxTx) => {
      const err = await outbox.enqueue('InvoiceEarned', sale(`inv-${Math.random()}`), { tx }).catch((e) => e);
      return err instanceof OutboxTransactionError ? err.code : err;
    };
    const connection = await pool.connect();
    expect(await codeOf(pool)).toBe('NOT_A_TRANSACTION');
    expect(await codeOf(sql)).toBe('NOT_A_TRANSACTION');
    expect(await codeOf(connection)).toBe('NOT_IN_TRANSACTION');
    await connection.query('BEGIN');
    await connection.query('COMMIT');
    expect(await codeOf(connection)).toBe('NOT_IN_TRANSACTION');
    let finished: PostgresOutboxTx | undefined;
    await sql.begin(async (tx) => {
      finished = tx;
    });
    expect(await codeOf(finished!)).toBe('NOT_IN_TRANSACTION');
    connection.release();
    await outbox.close();
    expect(await rows()).toBe(0);
  });

  it('refuses a payload the contract refuses before any statement, leaving the sale’s transaction usable', async () => {
    const outbox = outboxOn(pool);
    await outbox.start();
    const tx = await pool.connect();
    await tx.query('BEGIN');
    const bad = { ...sale('inv-bad'), subtotalAfterDiscountBeforeVat: -5 };
    const err = await outbox.enqueue('InvoiceEarned', bad, { tx }).catch((e) => e);
    expect(err).toBeInstanceOf(LoyaltyValidationError);
    // Nothing was sent on tx: the transaction is not aborted, the sale can still commit.
    expect(tx.getTransactionStatus()).toBe('T');
    await tx.query('SELECT 1');
    await tx.query('COMMIT');
    tx.release();
    await outbox.close();
    expect(await rows()).toBe(0);
  });

  it.each([
    ['', false],
    [' in pipeline mode', true],
  ])(
    'with a pg client%s, writes a sale sent in one go and refuses an enqueue sent behind its ROLLBACK',
    async (_, pipeline) => {
      // A pg client reports the status of its last answer, not of the queries still ahead of the
      // enqueue (queued behind a running one, or all sent at once in pipeline mode).
      const piped = new pg.Client({ connectionString: url, pipeline });
      await piped.connect();
      const outbox = outboxOn(pool);
      await outbox.start();
      await outbox.stopTenant(merchant.tenantId, 'stored, not sent: this test reads the table');
      const codeOf = (err: unknown) => (err instanceof OutboxTransactionError ? err.code : err);

      // BEGIN, the enqueue and COMMIT without awaiting each (one round trip in pipeline mode):
      // the enqueue is not refused for a BEGIN not answered yet, and its row commits with them.
      const [, written] = await Promise.all([
        piped.query('BEGIN'),
        outbox.enqueue('InvoiceEarned', sale('inv-piped'), { tx: piped }),
        piped.query('COMMIT'),
      ]);
      // ROLLBACK sent just before the enqueue: the client still reports the open transaction, but
      // the INSERT would run after the ROLLBACK, on its own. It is refused, and writes nothing.
      await piped.query('BEGIN');
      const [, afterRollback] = await Promise.all([
        piped.query('ROLLBACK'),
        outbox.enqueue('InvoiceEarned', sale('inv-rolled-back'), { tx: piped }).catch((err) => err),
      ]);
      // A failed statement ahead of it: the transaction can only roll back.
      await piped.query('BEGIN');
      const [, afterFailure] = await Promise.all([
        piped.query('SELECT 1/0').catch(() => undefined),
        outbox.enqueue('InvoiceEarned', sale('inv-aborted'), { tx: piped }).catch((err) => err),
      ]);
      await piped.query('ROLLBACK');
      await piped.end();
      const stored = await outbox.list('pending');
      // Emptied before the tenant resumes: the drain test below counts every request it sees.
      await pool.query(`DELETE FROM "${schema}".outbox`);
      await outbox.resumeTenant(merchant.tenantId);
      await outbox.close();

      expect(codeOf(afterRollback)).toBe('NOT_IN_TRANSACTION');
      expect(codeOf(afterFailure)).toBe('TRANSACTION_ABORTED');
      expect(stored.map((event) => event.eventId)).toEqual([written.eventId]);
    },
  );

  it('with one pg Client for the store and the sales, never sends a rolled-back sale’s event', async () => {
    // The drain's claims run on the store's client: behind the sale's BEGIN they would be part of
    // the sale's transaction, see its uncommitted event, and send it before the ROLLBACK.
    // A merchant of its own: the drain test below counts every request of the shared one.
    const own = emulator.createMerchant({ autoConfirmBranches: true });
    const ownClient = new LoyaltyClient({ baseUrl, apiKey: own.apiKey, signingSecret: own.signingSecret });
    await ownClient.send('BranchSynced', { externalBranchId: 'branch-1', name: 'Olaya', isActive: true });
    await ownClient.send('CustomerSynced', { externalCustomerId: 'cust-1', phone: '+966500000001' });
    const shared = new pg.Client({ connectionString: url });
    await shared.connect();
    const outbox = createOutbox({
      client: ownClient,
      store: postgresStore(shared, { schema }),
      defaultTenantId: own.tenantId,
      pollIntervalMs: 5,
    });
    await outbox.start();
    const sent = (eventId: string) =>
      emulator.events({ tenantId: own.tenantId }).some((e) => e.eventId === eventId);

    await shared.query('BEGIN');
    const rolledBack = await outbox.enqueue('InvoiceEarned', sale('inv-shared-rolled-back'), { tx: shared });
    // The store's own statements are refused while the transaction is open, with the reason.
    const refused = await outbox.enqueue('InvoiceEarned', sale('inv-shared-no-tx')).catch((err) => err);
    await new Promise((resolve) => setTimeout(resolve, 200)); // forty polls
    await shared.query('ROLLBACK');

    await shared.query('BEGIN');
    const committed = await outbox.enqueue('InvoiceEarned', sale('inv-shared-committed'), { tx: shared });
    await shared.query('COMMIT');
    const deadline = Date.now() + 10_000;
    while (!sent(committed.eventId) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 10));
    await outbox.close();
    await ownClient.close();
    await shared.end();

    expect(refused).toBeInstanceOf(PostgresStoreError);
    expect((refused as PostgresStoreError).code).toBe('CLIENT_IN_TRANSACTION');
    expect(sent(rolledBack.eventId)).toBe(false);
    expect(sent(committed.eventId)).toBe(true);
    await pool.query(`DELETE FROM "${schema}".outbox`);
  });

  it('fails an enqueue whose connection died with PostgresStoreError CONNECTION_LOST; nothing is written', async () => {
    const outbox = outboxOn(pool);
    await outbox.start();
    const tx = await pool.connect();
    tx.on('error', () => undefined);
    await tx.query('BEGIN');
    const { pid } = (await tx.query('SELECT pg_backend_pid() AS pid')).rows[0];
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    const err = await outbox.enqueue('InvoiceEarned', sale('inv-lost'), { tx }).catch((e) => e);
    tx.release(true);
    await outbox.close();
    expect(err).toBeInstanceOf(PostgresStoreError);
    expect((err as PostgresStoreError).code).toBe('CONNECTION_LOST');
    expect(await rows()).toBe(0);
  });

  it('delivers every event once, under its own eventId, while claims lose their connections', async () => {
    const writer = outboxOn(pool);
    await writer.start();
    await writer.stopTenant(merchant.tenantId, 'held until the drain starts');
    const enqueued = new Set<string>();
    const tx = await pool.connect();
    await tx.query('BEGIN');
    for (let i = 0; i < 150; i++) {
      const { eventId } = await writer.enqueue(
        'InvoiceEarned',
        sale(`inv-drain-${i}`, `cust-${(i % 3) + 1}`),
        { tx },
      );
      enqueued.add(eventId);
    }
    await tx.query('COMMIT');
    tx.release();
    await writer.close();

    const drainPool = new pg.Pool({ connectionString: url, max: 6 });
    drainPool.on('error', () => undefined);
    const outbox = outboxOn(drainPool);
    await outbox.start();
    await outbox.resumeTenant(merchant.tenantId);
    let terminated = 0;
    const pending = async () =>
      (await pool.query(`SELECT count(*)::int AS n FROM "${schema}".outbox WHERE state = 'pending'`)).rows[0]
        .n;
    // Claims lose their connections 20 times, then the drain may finish: killing every claim for
    // ever would starve it on a slow machine, which proves nothing more.
    while ((await pending()) > 0) {
      if (terminated < 20) {
        // Only this test's claims: files running beside it share the server, and their `migrate`
        // creates a function of the same name in their own schema.
        const { rowCount } = await pool.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE query LIKE $1 AND state = 'active' AND pid <> pg_backend_pid()`,
          [`%"${schema}".outbox_record_claim%`],
        );
        terminated += rowCount ?? 0;
      }
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    await outbox.close();
    await drainPool.end();

    const requests = emulator.events({ tenantId: merchant.tenantId, eventType: 'InvoiceEarned' });
    const credits = new Map<string, number>();
    for (const request of requests.filter((r) => r.outcome === 'processed')) {
      credits.set(request.eventId!, (credits.get(request.eventId!) ?? 0) + 1);
    }
    expect(terminated).toBeGreaterThan(0);
    expect(requests.filter((request) => !enqueued.has(request.eventId!))).toEqual([]);
    expect([...enqueued].filter((eventId) => credits.get(eventId) !== 1)).toEqual([]);
  }, 120_000);
});
